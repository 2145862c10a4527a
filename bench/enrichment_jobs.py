"""``python -m bench.enrichment_jobs``: an ALB access log enriched as a job in the bucket, under the configuration
``make run`` uses (section 14b of ``make bench``).

The local stack (DynamoDB Local, moto's S3 and SQS, the real loader with ``make run``'s two data workers) loads the
shared IPv4 file as ``geo``; a log of ``--jobs-megabytes`` MB, uncompressed (lines made from AWS's documented ALB
example, clients Zipf-distributed over 100,000 addresses), is uploaded as the input of a job named ``bench``, and
its job file after it. Measured: from the job file's upload to its summary saying ``done``, the parts it was cut into,
and the rows and lines out against the lines in (none lost, none twice).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.enrichment import ALB_LINE, clients
from fencepost.core.storage.job_keys import job_file_key, summary_key
from local.config import StackConfig
from local.ports import free_port
from local.stack import LocalStack

ROOT = Path(__file__).resolve().parent.parent
V4_FILE = ROOT.parent / "shared" / "data" / "iptoasn-ip2country-v4-20241107.tsv.gz"
JOB = "bench"


def alb_log(megabytes: int) -> tuple[bytes, int]:
    """About ``megabytes`` MB of ALB log lines (section 14's, clients Zipf-distributed), and how many lines."""
    count = megabytes * 1_000_000 // (len(ALB_LINE) + 4)
    return "".join(ALB_LINE.format(client=client) + "\n" for client in clients(count, zipf=True)).encode(), count


def ranges(count: int) -> bytes:
    """The shared IPv4 file, or its first ``count`` ranges (0: all)."""
    if not count:
        return V4_FILE.read_bytes()
    with gzip.open(V4_FILE, "rb") as handle:
        return b"".join(itertools.islice(handle, count))


def measure(megabytes: int, count: int = 0, timeout: float = 3600.0) -> dict[str, Any]:
    body, lines = alb_log(megabytes)
    with tempfile.TemporaryDirectory(prefix="fencepost-bench-") as folder:
        config = StackConfig(
            dynamodb_port=free_port(), aws_port=free_port(), http_port=None, data_dir=Path(folder), log_level="WARNING"
        )
        with LocalStack(config) as stack:
            s3, bucket = stack.client("s3"), config.bucket
            s3.put_object(Bucket=bucket, Key="geo/v4.tsv.gz", Body=gzip.compress(ranges(count), 1))
            if stack.wait_for("geo", timeout=timeout)["status"] != "READY":
                raise RuntimeError("the bench's dataset did not load")
            s3.put_object(Bucket=bucket, Key=f"_enrich/{JOB}/in/alb.log", Body=body)
            started = time.perf_counter()
            s3.put_object(Bucket=bucket, Key=job_file_key(JOB), Body=json.dumps({"datasets": ["geo"], "format": "alb"}))
            summary = _wait(s3, bucket, timeout)
            seconds = time.perf_counter() - started
            output = s3.get_object(Bucket=bucket, Key=summary["outputs"][0]["output"])["Body"].read()
    if summary["state"] != "done":
        raise RuntimeError(f"the bench's job failed: {summary.get('reason')}")
    text = gzip.decompress(output) if output[:2] == b"\x1f\x8b" else output
    return {
        "megabytes": round(len(body) / 1e6, 1),
        "ranges": count or "all",
        "lines": lines,
        "rows": summary["rows"],
        "lines_out": text.count(b"\n") - 1,  # the CSV's header
        "parts": summary["parts"],
        "seconds": round(seconds, 1),
        "worker_seconds": summary["worker_seconds"],
        "bad_rows": summary["bad_rows"],
    }


def _wait(s3: Any, bucket: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            summary: dict[str, Any] = json.loads(s3.get_object(Bucket=bucket, Key=summary_key(JOB))["Body"].read())
            return summary
        except s3.exceptions.NoSuchKey:
            time.sleep(0.5)
    raise TimeoutError(f"the bench's job did not finish in {timeout} s")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs-megabytes", type=int, default=1000, help="MB of ALB log enriched as a job (0: none)")
    parser.add_argument("--jobs-ranges", type=int, default=0, help="ranges of the IPv4 file it is joined with (0: all)")


def section(args: argparse.Namespace) -> str | None:
    if not args.jobs_megabytes:
        return None
    found = measure(args.jobs_megabytes, args.jobs_ranges)
    lost = found["lines"] - found["rows"]
    which = "the" if not args.jobs_ranges else f"{args.jobs_ranges:,} of the"
    return "\n".join(
        [
            "### 14b. An ALB log enriched as a job in the bucket, under make run",
            "",
            f"{found['megabytes']:,} MB of ALB log ({found['lines']:,} lines, uncompressed) uploaded under "
            f"`_enrich/{JOB}/in/` of the local stack (`make run`'s configuration: two data workers, parts of "
            f"`ENRICH_PART_BYTES`, 64 MiB), enriched with {which} shared IPv4 file's 450k ranges:",
            "",
            "| parts | seconds, job file to summary | lines a second | MB a second | worker seconds | rows lost |",
            "|---:|---:|---:|---:|---:|---:|",
            f"| {found['parts']} | {found['seconds']} | {found['lines'] / found['seconds']:,.0f} | "
            f"{found['megabytes'] / found['seconds']:,.1f} | {found['worker_seconds']} | {lost:,} |",
            "",
            f"Rows in the summary: {found['rows']:,}; lines out, past the header: {found['lines_out']:,}.",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.enrichment_jobs", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.jobs_megabytes, args.jobs_ranges), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
