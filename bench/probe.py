"""Measurements that need a fresh process: ``python -m bench.probe <what> <output.json> [args]``.

- ``import <module>``: seconds to import a handler module (or ``boto3`` plus creating a client);
- ``warm``: microseconds per warm lookup invocation with DynamoDB replaced by an in-memory fake client;
- ``warm-as-of``: the same lookup ``as_of`` an instant (its version resolved from the dataset's cached history);
- ``batch``: the same for a ``POST /lookup`` of 100 addresses, all inside one range (so with the range cache on,
  one Query and 99 hits; off, 100 Queries);
- ``pipeline <file>``: the loader's planning path (read, validate, flatten, chunk) with its peak memory.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

ENV = {
    "TABLE_NAME": "bench",
    "BUCKET_NAME": "bench",
    "CONTROL_QUEUE_URL": "http://127.0.0.1:1/queue/bench-control",
    "DATA_QUEUE_URL": "http://127.0.0.1:1/queue/bench-data",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "POWERTOOLS_METRICS_NAMESPACE": "Bench",
}


def _peak_mb() -> float:
    """This process's peak resident memory. (``ru_maxrss`` would also count the parent's, inherited at fork.)"""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_import(module: str) -> dict[str, Any]:
    started = time.perf_counter()
    if module == "boto3":
        import boto3

        boto3.client("dynamodb")
    else:
        __import__(module)
    return {"seconds": time.perf_counter() - started}


class FakeClient:
    """Answers the lookup's three calls from memory: the live pointer, the version, the range's Query."""

    def __init__(self) -> None:
        from fencepost.aws.dynamo.codec import encode
        from fencepost.aws.dynamo.serving import pointer_item
        from fencepost.aws.dynamo.timelines import event_item
        from fencepost.core.space.addresses import V4
        from fencepost.core.storage.keys import VERSION_HEADER_SK, Directory, version_pk
        from fencepost.core.versions.build import FamilyRanges
        from fencepost.model import LivePointer, VersionHeader

        ranges = FamilyRanges(V4)
        ranges.add(0x01002000, 0x01003FFF, ("CN",))
        pieces = ranges.pieces()
        self.range_item = next(ranges.items("geo", 3, pieces))
        self.pointer = {"Item": pointer_item("geo", LivePointer("geo", 3, 1_795_000_000.0))}
        # Versions 1 to 3 went live a week apart; version 3 at the live pointer's instant
        self.history = {"Items": [event_item("geo", 1_795_000_000.0 - (3 - v) * 604_800, v) for v in (1, 2, 3)]}
        directory = Directory.of_starts(V4, [piece.start for piece in pieces])
        self.version = {
            "Items": [
                encode(VersionHeader(("country",), 1, 1, [], ""), PK=version_pk("geo", 3), SK=VERSION_HEADER_SK),
                {
                    "PK": {"S": version_pk("geo", 3)},
                    "SK": {"N": "1"},
                    "f": {"N": str(V4)},
                    "p": {"S": directory.pages(10_000)[0]},
                },
            ]
        }

    def get_item(self, **_: Any) -> dict[str, Any]:
        return self.pointer  # the only item a lookup gets: the live pointer

    def query(self, **kwargs: Any) -> dict[str, Any]:
        if kwargs["ExpressionAttributeValues"][":p"]["S"].startswith("#v#"):
            return self.version
        if kwargs["ExpressionAttributeValues"][":p"]["S"].startswith("#h#"):
            return self.history
        return {"Items": [self.range_item], "Count": 1, "ScannedCount": 1}


BATCH = 100


def _batch_event() -> dict[str, Any]:
    from tests.support import EVENTS

    event: dict[str, Any] = json.loads((EVENTS / "lookup-post.json").read_text())
    addresses = [f"1.0.{32 + n // 256}.{n % 256}" for n in range(BATCH)]  # inside 1.0.32.0/19, FakeClient's range
    event["body"] = json.dumps({"ips": addresses, "dataset": "geo"})
    return event


AS_OF = "2026-11-20T12:00:00Z"  # after version 3 went live (FakeClient's history): the version the live lookup reads


def measure_warm(
    invocations: int, profile: str | None = None, *, batch: bool = False, as_of: bool = False
) -> dict[str, Any]:
    from fencepost.handlers import lookup
    from tests.support import EVENTS, LambdaContext

    lookup.wired.tables.table.client = FakeClient()  # type: ignore[assignment]
    event = _batch_event() if batch else json.loads((EVENTS / "lookup-get.json").read_text())
    if as_of:
        event["queryStringParameters"] = {**event["queryStringParameters"], "as_of": AS_OF}
    context = LambdaContext()
    response = lookup.handler(event, context)
    assert response["statusCode"] == 200, response
    for _ in range(500):
        lookup.handler(event, context)
    if profile:
        import cProfile

        cProfile.runctx("for _ in range(invocations): lookup.handler(event, context)", globals(), locals(), profile)
    samples = []
    for _ in range(invocations):
        started = time.perf_counter()
        lookup.handler(event, context)
        samples.append(time.perf_counter() - started)
    samples.sort()
    return {"median_us": samples[len(samples) // 2] * 1e6, "p99_us": samples[int(len(samples) * 0.99)] * 1e6}


def measure_pipeline(path: str) -> dict[str, Any]:
    """The loader's planning path on one file, as the build step runs it (with the cyclic GC paused)."""
    from fencepost.core.pauses import gc_paused

    with gc_paused():
        return _pipeline(path)


def _pipeline(path: str) -> dict[str, Any]:
    from fencepost.core.formats.base import ReadOptions
    from fencepost.core.formats.choice import read_ranges
    from fencepost.core.space.addresses import FAMILIES
    from fencepost.core.storage import chunks
    from fencepost.core.versions.build import Collector, ProblemLog

    baseline = _peak_mb()
    collector, problems = Collector(), ProblemLog()
    opener: Any = __import__("gzip").open if path.endswith(".gz") else open
    started = time.perf_counter()
    with opener(path, "rb") as handle:
        summary = read_ranges(Path(path).name, handle, ReadOptions(), collector, problems)
    read = time.perf_counter()
    families = collector.families
    pieces = {family: families[family].pieces() for family in FAMILIES}
    directories = {family: families[family].directory(pieces[family]) for family in FAMILIES}
    flattened = time.perf_counter()
    book = chunks.Book(families, pieces)
    sample: list[str] = []
    count = 0
    for _, payload in chunks.cut(book.shuffled(1), 5000, book.encode):
        count += 1  # each payload is sent and dropped by the loader; only the first few are kept here
        if len(sample) < 20:
            sample.append(payload)
    planned = time.perf_counter()
    peak = _peak_mb()
    # Building the items, as the chunk writers do from the messages (timed on the first 20 chunks).
    built = sum(len(chunks.decode(payload, "bench", 1)) for payload in sample)
    items_rate = built / (time.perf_counter() - planned) if built else 0.0
    del directories
    return {
        "rows": summary.rows,
        "items": len(book),
        "chunks": count,
        "problems": problems.count,
        "read_seconds": read - started,
        "flatten_seconds": flattened - read,
        "chunk_seconds": planned - flattened,
        "seconds": planned - started,
        "rows_per_second": summary.rows / (planned - started),
        "items_built_per_second": items_rate,
        "peak_mb": peak,
        "baseline_mb": baseline,
    }


def main(argv: list[str]) -> int:
    what, output = argv[0], argv[1]
    for name, value in ENV.items():
        os.environ.setdefault(name, value)
    if what == "import":
        result = measure_import(argv[2])
    elif what == "warm":
        result = measure_warm(int(argv[2]), argv[3] if len(argv) > 3 else None)
    elif what == "warm-as-of":
        result = measure_warm(int(argv[2]), as_of=True)
    elif what == "batch":
        result = measure_warm(int(argv[2]), batch=True)
    elif what == "pipeline":
        result = measure_pipeline(argv[2])
    else:
        raise SystemExit(f"unknown measurement {what!r}")
    Path(output).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
