"""A DynamoDB client wrapper that injects the faults DynamoDB Local never produces: throttling, unprocessed
items, a writer that dies mid-way. Everything else goes to the real client."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from botocore.exceptions import ClientError


class Killed(BaseException):
    """The invocation died (as when Lambda kills it): no handler of the loader runs, as none catches more than
    ``Exception``."""


class FaultyClient:
    def __init__(
        self,
        client: Any,
        *,
        throttle: float = 0.0,
        unprocessed: float = 0.0,
        die_after: int | None = None,
        only_puts: bool = True,
        seed: int = 3,
    ) -> None:
        self._client = client
        self.throttle = throttle
        self.unprocessed = unprocessed
        self.die_after = die_after
        self.only_puts = only_puts
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.calls = self.throttled = self.held_back = self.deaths = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def batch_write_item(self, RequestItems: dict[str, list[Any]], **kwargs: Any) -> Any:  # noqa: N803 - boto3's name
        ((table, requests),) = RequestItems.items()
        if self.only_puts and not any("PutRequest" in r for r in requests):
            return self._client.batch_write_item(RequestItems=RequestItems, **kwargs)
        with self.lock:
            self.calls += 1
            if self.die_after is not None and self.calls > self.die_after and not self.deaths:
                self.deaths += 1
                raise Killed("the writer died mid-chunk")
            roll, share = self.random.random(), self.random.random()
        if roll < self.throttle:
            with self.lock:
                self.throttled += 1
            raise ClientError(
                {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "injected"}},
                "BatchWriteItem",
            )
        if roll < self.throttle + self.unprocessed and len(requests) > 1:
            keep = max(1, int(len(requests) * share))
            written, held = requests[:keep], requests[keep:]
            self._client.batch_write_item(RequestItems={table: written}, **kwargs)
            with self.lock:
                self.held_back += len(held)
            return {"UnprocessedItems": {table: held}}
        return self._client.batch_write_item(RequestItems=RequestItems, **kwargs)


def stored_items(
    client: Any, table: str, dataset: str, version: int, *, segments: int = 1
) -> dict[tuple[str, str], dict[str, Any]]:
    """Every range item of a version, by key (a whole-table Scan, in ``segments`` scanned at once)."""

    def segment(number: int) -> dict[tuple[str, str], dict[str, Any]]:
        pages = client.get_paginator("scan").paginate(
            TableName=table,
            FilterExpression="begins_with(PK, :p)",
            ExpressionAttributeValues={":p": {"S": f"{dataset}#{version}#"}},
            **({"Segment": number, "TotalSegments": segments} if segments > 1 else {}),
        )
        return {(item["PK"]["S"], item["SK"]["N"]): item for page in pages for item in page["Items"]}

    with ThreadPoolExecutor(max_workers=segments) as pool:
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for part in pool.map(segment, range(segments)):
            found.update(part)
    return found


def expected_items(rows: list[list[str]], dataset: str, version: int) -> dict[tuple[str, str], dict[str, Any]]:
    """The items a version of these rows must hold: one per flattened piece, every attribute."""
    from tests.support import family_ranges

    items = {}
    for ranges in family_ranges(rows).values():
        for item in ranges.items(dataset, version, ranges.pieces()):
            items[(item["PK"]["S"], item["SK"]["N"])] = item
    return items
