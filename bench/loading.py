"""Loading the same slice three ways, into fresh tables of one warm DynamoDB Local.

- reference: the design's plain approach, one thread, rows in file order, one resource ``put_item`` per row;
- loader: the project's loader through its real path (S3 put, notification, build, chunk messages, writers);
- bound: the loader's own items, pre-built, sent as 25-item BatchWriteItem calls by N threads doing nothing else
  (the same client configuration as the loader's, and the same shuffled order).
"""

from __future__ import annotations

import ipaddress
import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from botocore.config import Config

from fencepost.core.formats.base import ReadOptions
from fencepost.core.formats.choice import read_ranges
from fencepost.core.space.addresses import FAMILIES
from fencepost.core.storage import chunks
from fencepost.core.storage.items import item_bytes
from fencepost.core.versions.build import Collector, ProblemLog
from local.dynamodb import create_table, local_client, local_resource
from local.stack import LocalStack


@dataclass
class LoadResult:
    name: str
    rows: int
    seconds: float
    consumed_wcu: float = 0.0
    items: int = 0
    invocation_seconds: float = 0.0  # the loader's handler time, summed over invocations
    threads: int = 1
    table: str = ""

    @property
    def rate(self) -> float:
        return self.rows / self.seconds


def reference(endpoint: str, lines: Sequence[bytes]) -> LoadResult:
    """The design's loader re-created: each row put on its own, the /8 as partition key, start as sort key."""
    resource = local_resource(endpoint)
    name = f"reference-{uuid.uuid4().hex[:8]}"
    create_table(resource.meta.client, name)
    table = resource.Table(name)
    started = time.perf_counter()
    for line in lines:
        start, end, *metadata = line.decode().rstrip("\n").split("\t")
        first, last = int(ipaddress.ip_address(start)), int(ipaddress.ip_address(end))
        table.put_item(Item={"PK": str(first >> 24), "SK": first, "end": last, "data": metadata})
    return LoadResult("reference", len(lines), time.perf_counter() - started, table=name)


def loader_items(lines: Sequence[bytes], seed: int = 1) -> list[dict[str, Any]]:
    """The items the loader writes for these lines, in its shuffled order."""
    collector = Collector()
    read_ranges("slice", lines, ReadOptions(), collector, ProblemLog())
    families = collector.families
    book = chunks.Book(families, {family: families[family].pieces() for family in FAMILIES})
    return book.items(book.shuffled(seed), "bound", 1)


def mean_item_bytes(items: Sequence[dict[str, Any]]) -> float:
    return sum(map(item_bytes, items)) / len(items)


def bound(endpoint: str, items: Sequence[dict[str, Any]], threads: int) -> LoadResult:
    # The loader's client configuration (no client-side validation), so the two compare like with like.
    config = Config(parameter_validation=False, max_pool_connections=threads + 4, retries={"max_attempts": 3})
    client = local_client(endpoint, config=config)
    name = f"bound-{uuid.uuid4().hex[:8]}"
    create_table(client, name)
    batches = iter([[{"PutRequest": {"Item": item}} for item in items[i : i + 25]] for i in range(0, len(items), 25)])
    lock = threading.Lock()
    consumed = [0.0]

    def send() -> None:
        while True:
            with lock:
                batch = next(batches, None)
            if batch is None:
                return
            while batch:
                response = client.batch_write_item(RequestItems={name: batch}, ReturnConsumedCapacity="TOTAL")
                with lock:
                    consumed[0] += sum(c.get("CapacityUnits", 0) for c in response.get("ConsumedCapacity", []))
                batch = response.get("UnprocessedItems", {}).get(name, [])

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for future in [pool.submit(send) for _ in range(threads)]:
            future.result()
    seconds = time.perf_counter() - started
    return LoadResult("bound", len(items), seconds, consumed[0], len(items), threads=threads, table=name)


def project(stack: LocalStack, body: bytes, rows: int, dataset: str) -> LoadResult:
    """The loader through its real path: from the S3 put to READY as the API reports it."""
    s3 = stack.client("s3")
    workers = stack.workers.values()
    busy_before = sum(worker.busy_seconds for worker in workers)
    started = time.perf_counter()
    s3.put_object(Bucket=stack.config.bucket, Key=f"{dataset}/slice.tsv", Body=body)
    record = stack.wait_for(dataset, timeout=3600)
    seconds = time.perf_counter() - started
    if record["status"] != "READY":
        raise RuntimeError(f"the bench load failed: {record['load']['problems'][:3]}")
    items = record["load"]["items_written"]
    return LoadResult(
        "loader",
        rows,
        seconds,
        items=items,
        invocation_seconds=sum(worker.busy_seconds for worker in workers) - busy_before,
    )
