"""``make run``: the whole service on this machine, until Ctrl-C.

The local S3 keeps nothing across restarts, so every object dropped in the bucket is mirrored to ``var/s3`` and put
back at the next start. DynamoDB Local keeps the table in memory by default (``--table memory``: loads at its full
speed), so at the next start every dataset is built again from those objects; with ``--table disk`` it keeps the
table in ``var/dynamodb`` (``local.storage``), and every dataset the table knows is checked against the objects
actually in the bucket (unchanged ones are confirmed at once, emptied ones retire). Either way the datasets served
always match the bucket. A dataset rolled back stays rolled back: its folder still holds what
the rollback moved away from, which is no change (``fencepost.loading.building``).
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

from capacity.modes import ModeError, parse_mode
from fencepost.model import DatasetRecord, LoadStatus
from local import state as stack_file
from local.config import DISK, MEMORY, ROOT, StackConfig
from local.config import environment as environment_of
from local.dynamodb import LocalStackError
from local.faults import FaultSpecError, parse_faults
from local.faults.spec import FAULTS
from local.mirror import Mirror, reconcile
from local.stack import LocalStack

SAMPLES = ROOT / "samples"
SAMPLE = "sample"  # the dataset loaded at start from samples/, and the default dataset of make run's lookups


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
        _sources(stack, shown)


def _sources(stack: LocalStack, shown: dict[str, tuple[Any, ...]]) -> None:
    """Print each folder's source when its last check's outcome changes (a release written, a failure, its reason)."""
    try:
        states = stack.loader.tables.sources.source_states()  # type: ignore[union-attr]
    except Exception:
        return
    for name, state in states.items():
        seen = (state.outcome, state.last_changed, state.reason, state.paused)
        if shown.get(f"source {name}") == seen:
            continue
        shown[f"source {name}"] = seen
        what = "paused" if state.paused else state.outcome + (f": {state.reason}" if state.reason else "")
        where = f" ({state.url})" if state.url else ""
        print(f"[{time.strftime('%H:%M:%S')}] source {name}{where}: {what}", flush=True)


def _kept(stack: LocalStack) -> str:
    if stack.storage is not None:
        where = "worked on in /dev/shm" if stack.storage.in_memory else "worked on there: no /dev/shm"
        return f"kept in {stack.storage.durable}, {where}"
    return "in memory: rebuilt from the mirrored objects at each start"


def _capacity(stack: LocalStack) -> str:
    if stack.front is None:
        return "off: DynamoDB Local as it is, unlimited (CAPACITY=on-demand-new etc. emulates DynamoDB's partitions)"
    behind = stack.dynamodb.endpoint if stack.dynamodb else ""
    record = stack.front.record or "not kept"
    return f"emulated ({stack.front.describe()}), DynamoDB Local behind it at {behind}; per second: {record}"


def _faults(stack: LocalStack) -> str:
    if stack.faults is None:
        return ""
    spec = stack.faults.spec
    where = [f"DynamoDB's at {stack.dynamodb_endpoint}"] if spec.dynamodb else []
    where += (
        [f"S3's at {stack.aws_endpoint} (moto behind it at {stack.moto.endpoint})"] if spec.s3 and stack.moto else []
    )
    where += ["the data lane's loader workers run as processes"] if spec.loader_kill else []
    return f"  Faults          {spec.describe()}, FAULTS_SEED={stack.faults.seed}: {'; '.join(where)}\n"


def _listening(stack: LocalStack) -> str:
    """Every port the stack listens on, and on which addresses: what anyone who can reach this machine could use."""
    ports = [f"{stack.config.http_port} (HTTP API)", f"{stack.config.aws_port} (S3, SQS)"]
    if stack.s3_front is not None and stack.moto is not None:
        ports.append(f"{stack.moto.port} (moto's S3, SQS behind the faults)")
    db = stack.dynamodb
    behind = [f"{db.port} (DynamoDB Local)"] if db else []
    if stack.dynamodb_front is not None:
        ports.append(f"{stack.config.dynamodb_port} (the DynamoDB front: capacity emulator, faults)")
    if db is None or db.launcher is None or db.launcher.loopback:
        return "127.0.0.1 only: " + ", ".join(ports + behind)
    return f"127.0.0.1: {', '.join(ports)}; every interface: {behind[0]}, as {db.launcher.note}"


def _banner(stack: LocalStack, state_file: Path | None) -> str:
    api, s3 = stack.api_url, stack.aws_endpoint
    env = (f"DATA_DIR={stack.config.data_dir} " if _other_data_dir(stack) else "") + "source local/env.sh"
    where = state_file.relative_to(ROOT) if state_file and state_file.is_relative_to(ROOT) else state_file
    kept = f"  State           {where} (source local/env.sh reads it)\n" if where else ""
    return f"""
Fencepost is running locally.
  HTTP API        {api}   (GET {api}/ lists the routes; OpenAPI: {api}/openapi.json)
  Console         {api}/console   (open it in a browser)
  S3 and SQS      {s3}   (bucket: {stack.config.bucket})
  DynamoDB        {stack.dynamodb_endpoint if stack.dynamodb else ""}   (table: {stack.config.table}, {_kept(stack)})
  Capacity        {_capacity(stack)}
{_faults(stack)}  Listening on    {_listening(stack)}
{kept}
Try, in another terminal:
  {env}
  curl "$API/lookup?ip=8.8.8.8"   # no dataset=: the default one, {stack.config.default_dataset or "default"}
  aws s3 cp myfile.csv s3://{stack.config.bucket}/geo/myfile.csv
  curl "$API/datasets/geo"

Ctrl-C stops everything.
"""


def _other_data_dir(stack: LocalStack) -> bool:
    return stack.config.data_dir is not None and stack.config.data_dir.resolve() != (ROOT / "var").resolve()


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m local", description="Run Fencepost locally.")
    parser.add_argument("--dynamodb-port", type=int, default=int(os.environ.get("DYNAMODB_PORT", "8000")))
    parser.add_argument("--aws-port", type=int, default=int(os.environ.get("AWS_PORT", "4566")))
    parser.add_argument("--http-port", type=int, default=int(os.environ.get("HTTP_PORT", "3000")))
    parser.add_argument("--data-dir", type=Path, default=stack_file.data_dir())
    parser.add_argument(
        "--table",
        choices=(MEMORY, DISK),
        default=MEMORY,
        help="keep the table in memory (loads at full speed; rebuilt from the mirrored objects at each start) or "
        "on disk (restarts in seconds; loads about a third slower)",
    )
    parser.add_argument(
        "--capacity",
        default=os.environ.get("CAPACITY", "off"),
        help="off (default: unlimited), on-demand-new, warm=<WRU>, provisioned=<WCU>, "
        "provisioned=<WCU>,then-on-demand: DynamoDB's partitions emulated in front of DynamoDB Local",
    )
    parser.add_argument("--capacity-scale", type=float, default=float(os.environ.get("CAPACITY_SCALE", "1")))
    parser.add_argument(
        "--faults",
        default=os.environ.get("FAULTS", ""),
        help="faults injected on purpose, comma-separated name=value: "
        + "; ".join(f"{name}: {what}" for name, what in FAULTS.items())
        + " (e.g. dynamodb.error=0.02,s3.cut=0.01,loader.kill=1)",
    )
    parser.add_argument(
        "--faults-seed",
        type=int,
        default=os.environ.get("FAULTS_SEED"),  # argparse reads a string default with ``type``: a bad one is said
        help="seed of the faults' decisions (default: drawn at start and printed, to repeat a run with it)",
    )
    args = parser.parse_args(argv)
    try:
        parse_mode(args.capacity)
        parse_faults(args.faults)
    except (ModeError, FaultSpecError) as error:
        parser.error(str(error))
    if not 0.001 <= args.capacity_scale <= 100:
        parser.error("CAPACITY_SCALE must be from 0.001 to 100")
    return args


def _restore(stack: LocalStack, config: StackConfig) -> None:
    """The mirrored objects back in the bucket, the datasets checked against them, and the sample loaded."""
    mirror = Mirror.attach(stack, config.data_dir / "s3")  # type: ignore[operator]
    restored = mirror.restore()
    known = reconcile(stack)
    if config.store == MEMORY and restored:
        print(f"Restored {restored} objects from {mirror.root}: building their datasets again.", flush=True)
    elif restored or known:
        print(f"Restored {restored} objects from {mirror.root}; checking {len(known)} known datasets.", flush=True)
    s3 = stack.direct_client("s3")  # the stack's own work: past the faults, if any
    if "Contents" not in s3.list_objects_v2(Bucket=config.bucket, Prefix=f"{SAMPLE}/"):
        for name in ("_settings.json", "asn-sample.tsv"):
            s3.put_object(Bucket=config.bucket, Key=f"{SAMPLE}/{name}", Body=(SAMPLES / name).read_bytes())


def _refuse_a_second_stack(data_dir: Path) -> None:
    """One stack per data dir: a second would mirror into the same folder and take over its state file."""
    try:
        running = stack_file.running(data_dir)
    except stack_file.NoStack:
        return
    raise LocalStackError(
        f"a local stack already runs from {data_dir} (process {running.pid}, API {running.api}): stop it first, "
        "or start this one with another DATA_DIR"
    )


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    config = StackConfig(
        dynamodb_port=args.dynamodb_port,
        aws_port=args.aws_port,
        http_port=args.http_port,
        data_dir=args.data_dir,
        store=args.table,
        capacity=args.capacity,
        capacity_scale=args.capacity_scale,
        default_dataset=SAMPLE,
        faults=args.faults,
        faults_seed=args.faults_seed,
    )
    stack = LocalStack(config)
    stopping = threading.Event()

    def interrupt(*_: Any) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    try:
        _refuse_a_second_stack(args.data_dir)
        print("Starting DynamoDB Local, the local S3/SQS, the loader worker and the HTTP API...", flush=True)
        stack.start()
        _restore(stack, config)
        threading.Thread(target=_progress, args=(stack, stopping), daemon=True).start()
        state_file = stack_file.write(args.data_dir, _state(stack))
        print(_banner(stack, state_file), flush=True)
        # Slept in steps, never waited on the event: a signal handler runs in this thread, and one that came while
        # this thread held the event's lock (inside wait) would block on it for ever in set()
        while not stopping.is_set():
            time.sleep(0.2)
        print("\nStopping...", flush=True)
    except LocalStackError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        stack_file.remove(args.data_dir, os.getpid())
        stack.stop()
    print("Stopped: nothing is left running.", flush=True)
    return 0


def _state(stack: LocalStack) -> stack_file.StackState:
    assert stack.queues is not None
    environment = environment_of(stack.config, stack.dynamodb_endpoint, stack.aws_endpoint, stack.queues)
    return stack_file.StackState(os.getpid(), stack.api_url, stack.aws_endpoint, stack.dynamodb_endpoint, environment)


if __name__ == "__main__":
    raise SystemExit(main())
