"""``make run``: the whole service on this machine, until Ctrl-C.

DynamoDB Local keeps the table in ``var/dynamodb``. The local S3 keeps nothing across restarts, so every object
dropped in the bucket is mirrored to ``var/s3`` and put back at the next start; then every dataset the table knows
is rebuilt from the objects actually in the bucket (unchanged ones are skipped at once, emptied ones retire), so
the datasets served always match the bucket. A dataset rolled back stays rolled back: its folder still holds what
the rollback moved away from, which is no change (``fencepost.loading.planning``).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from fencepost.model import DatasetRecord, LoadStatus
from local.dynamodb import LocalStackError
from local.stack import ROOT, LocalStack, StackConfig

SAMPLES = ROOT / "samples"


def _mirror_path(root: Path, key: str) -> Path | None:
    path = (root / key).resolve()
    return path if path.is_relative_to(root.resolve()) else None


class Mirror:
    """Keeps a copy of the bucket's objects on disk, from the notifications the loader receives."""

    def __init__(self, stack: LocalStack, root: Path) -> None:
        self.stack = stack
        self.root = root
        self.s3 = stack.client("s3")

    def observe(self, event: dict[str, Any]) -> None:
        import json

        for record in event.get("Records", []):
            try:
                body = json.loads(record.get("body", ""))
            except ValueError:
                continue
            for notification in body.get("Records", []) if isinstance(body, dict) else []:
                key = unquote_plus(notification["s3"]["object"]["key"])
                path = _mirror_path(self.root, key)
                if path is None or key.startswith("_reports/"):
                    continue
                if notification.get("eventName", "").startswith("ObjectRemoved"):
                    path.unlink(missing_ok=True)
                    continue
                try:
                    data = self.s3.get_object(Bucket=self.stack.config.bucket, Key=key)["Body"].read()
                except Exception:  # removed again meanwhile
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)

    def restore(self) -> int:
        count = 0
        for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
            key = path.relative_to(self.root).as_posix()
            self.s3.put_object(Bucket=self.stack.config.bucket, Key=key, Body=path.read_bytes())
            count += 1
        return count


def _reconcile(stack: LocalStack) -> list[str]:
    """Schedule a build of every dataset the table knows: each then matches the bucket's objects."""
    loader = stack.loader
    assert loader is not None
    names = [record.name for record in loader.tables.datasets.all() if not record.retired]
    for name in names:
        loader.service.request_build(name)
    return names


def progress_line(record: DatasetRecord) -> str:
    """What the terminal says of a dataset's state: LOADING with its phase and counts, READY, FAILED or retired."""
    load = record.load
    if record.retired:
        return "retired (its folder is empty)"
    if record.status == LoadStatus.LOADING and load.version is None:
        return "LOADING: a change was seen; waiting a moment for more before building"
    if record.status == LoadStatus.LOADING:
        counts = f"{load.rows_read} rows read, {load.items_written} items written"
        return f"LOADING build {load.version}: {load.phase}, {counts}"
    if record.status == LoadStatus.FAILED:
        reason = load.problems[0].reason if load.problems else "see the report"
        return f"FAILED build {load.version}: {reason} (live version: {record.live}; report: {load.report})"
    return f"READY version {record.live}, {record.ranges} ranges"


def _progress(stack: LocalStack, stop: threading.Event) -> None:
    """Print each dataset's state when it changes (a failure to read or describe one is skipped, never fatal)."""
    shown: dict[str, tuple[Any, ...]] = {}
    while not stop.wait(2.0):
        try:
            records = stack.loader.tables.datasets.all()  # type: ignore[union-attr]
        except Exception:
            continue
        for record in records:
            load = record.load
            state = (record.status, load.phase, load.rows_read, load.items_written, record.live, record.retired)
            if shown.get(record.name) == state:
                continue
            first_sight = record.name not in shown
            shown[record.name] = state
            if record.retired and first_sight:
                continue  # retired before this start: nothing to say
            try:
                line = progress_line(record)
            except Exception as error:  # the terminal's progress must outlive any record it cannot describe
                line = f"(state not shown: {error!r})"
            print(f"[{time.strftime('%H:%M:%S')}] dataset {record.name}: {line}", flush=True)


def _banner(stack: LocalStack) -> str:
    api, s3 = stack.api_url, stack.aws_endpoint
    return f"""
Fencepost is running locally.
  HTTP API        {api}   (OpenAPI: {api}/openapi.json)
  S3 and SQS      {s3}   (bucket: {stack.config.bucket})
  DynamoDB Local  {stack.dynamodb.endpoint if stack.dynamodb else ""}   (table: {stack.config.table})

Try:
  curl '{api}/lookup?ip=8.8.8.8&dataset=sample'
  source local/env.sh && aws --endpoint-url {s3} s3 cp myfile.csv s3://{stack.config.bucket}/geo/myfile.csv
  curl '{api}/datasets/geo'

Ctrl-C stops everything.
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local", description="Run Fencepost locally.")
    parser.add_argument("--dynamodb-port", type=int, default=int(os.environ.get("DYNAMODB_PORT", "8000")))
    parser.add_argument("--aws-port", type=int, default=int(os.environ.get("AWS_PORT", "4566")))
    parser.add_argument("--http-port", type=int, default=int(os.environ.get("HTTP_PORT", "3000")))
    parser.add_argument("--data-dir", type=Path, default=Path(os.environ.get("DATA_DIR", ROOT / "var")))
    args = parser.parse_args(argv)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)

    config = StackConfig(
        dynamodb_port=args.dynamodb_port, aws_port=args.aws_port, http_port=args.http_port, data_dir=args.data_dir
    )
    stack = LocalStack(config)
    stopping = threading.Event()

    def interrupt(*_: Any) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    try:
        print("Starting DynamoDB Local, the local S3/SQS, the loader worker and the HTTP API...", flush=True)
        stack.start()
        mirror = Mirror(stack, config.data_dir / "s3")  # type: ignore[operator]
        control = stack.workers["control"]  # S3's notifications arrive there
        deliver = control.handler

        def observed(event: dict[str, Any], context: Any) -> Any:
            mirror.observe(event)
            return deliver(event, context)

        control.handler = observed
        restored = mirror.restore()
        known = _reconcile(stack)
        if restored or known:
            print(f"Restored {restored} objects from {mirror.root}; checking {len(known)} known datasets.", flush=True)
        s3 = stack.client("s3")
        if "Contents" not in s3.list_objects_v2(Bucket=config.bucket, Prefix="sample/"):
            for name in ("_settings.json", "asn-sample.tsv"):
                s3.put_object(Bucket=config.bucket, Key=f"sample/{name}", Body=(SAMPLES / name).read_bytes())
        threading.Thread(target=_progress, args=(stack, stopping), daemon=True).start()
        print(_banner(stack), flush=True)
        while not stopping.wait(0.5):
            pass
        print("\nStopping...", flush=True)
    except LocalStackError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        stack.stop()
    print("Stopped: nothing is left running.", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
