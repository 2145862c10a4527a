"""Faults during a load: after each, the live version is the old one or the complete new one, and every item of
a version that went live is there."""

from __future__ import annotations

import json
import random
from typing import Any

from fencepost.core.addresses import format_address
from local.resources import queue_depth
from tests.faults import FaultyClient
from tests.integration.conftest import Stack
from tests.reference import Reference
from tests.support import V4_FILE, LambdaContext, event, family_ranges, read_tsv

ROWS = read_tsv(V4_FILE, 4000)


def _tsv(rows: list[list[str]]) -> bytes:
    return "".join("\t".join(row) + "\n" for row in rows).encode()


def _items(stack: Stack, dataset: str, version: int) -> int:
    pages = stack.ddb.get_paginator("scan").paginate(
        TableName=stack.table,
        FilterExpression="begins_with(PK, :p)",
        ExpressionAttributeValues={":p": {"S": f"{dataset}#{version}#"}},
        Select="COUNT",
    )
    return sum(page["Count"] for page in pages)


def _lookups(stack: Stack, dataset: str, addresses: list[str]) -> list[Any]:
    results = []
    for offset in range(0, len(addresses), 100):
        ev = event("lookup-post")
        ev["body"] = json.dumps({"ips": addresses[offset : offset + 100], "dataset": dataset})
        results += json.loads(stack.lookup.handler(ev, LambdaContext())["body"])["results"]
    return [(r.get("data"), r.get("range")) for r in results]


def _assert_complete(stack: Stack, dataset: str, version: int, rows: list[list[str]]) -> None:
    """Every item of the version is stored, and answers agree with the overlap rule."""
    ranges = family_ranges(rows)[4]
    assert _items(stack, dataset, version) == len(ranges.pieces())
    reference = Reference(ranges.starts, ranges.ends)
    rng = random.Random(5)
    addresses = [rng.randint(min(ranges.starts), max(ranges.ends)) for _ in range(500)]
    got = _lookups(stack, dataset, [format_address(4, a) for a in addresses])
    for address, (data, span) in zip(addresses, got, strict=True):
        row = reference.answer(address)
        expected = None if row is None else {"col3": ranges.values[row][0]}
        assert data == expected, format_address(4, address)
        if row is not None:
            assert span == {"start": format_address(4, ranges.starts[row]), "end": format_address(4, ranges.ends[row])}


def test_throttling_and_unprocessed_items_are_retried_until_every_item_is_written(stack: Stack) -> None:
    faulty = FaultyClient(stack.loader.store.client, throttle=0.25, unprocessed=0.25)
    stack.loader.store.client = faulty
    stack.put("geo/data.tsv", _tsv(ROWS))
    stack.drain()
    assert faulty.throttled > 10
    assert faulty.held_back > 10
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("READY", 1)
    _assert_complete(stack, "geo", 1, ROWS)


def test_a_chunk_that_dies_midway_is_delivered_again_and_completes(stack: Stack) -> None:
    faulty = FaultyClient(stack.loader.store.client, die_after=7)
    stack.loader.store.client = faulty
    stack.put("geo/data.tsv", _tsv(ROWS))
    stack.drain()
    assert faulty.deaths == 1
    record = stack.dataset("geo")
    assert (record["status"], record["version"], record["load"]["items_written"]) == ("READY", 1, len(ROWS))
    _assert_complete(stack, "geo", 1, ROWS)


def test_a_chunk_that_keeps_failing_fails_the_load_and_goes_to_the_dead_letter_queue(stack: Stack) -> None:
    # Given a live version
    stack.put("geo/data.tsv", _tsv(ROWS[:2000]))
    stack.drain()
    probes = [f"1.{i}.{i}.1" for i in range(0, 250, 5)]
    before = _lookups(stack, "geo", probes)
    # When every write of the next version is throttled, delivery after delivery
    faulty = FaultyClient(stack.loader.store.client, throttle=1.0)
    stack.loader.store.client = faulty
    stack.worker.timeout = 2.5  # each delivery retries until its deadline, then hands the chunk back
    stack.put("geo/data.tsv", _tsv(ROWS))
    stack.drain()
    # Then the load is FAILED with the reason, the chunk is in the dead-letter queue, the live version answers
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    reason = record["load"]["problems"][0]["reason"]
    assert "not written before the invocation's deadline" in reason
    assert "after 3 deliveries" in reason
    assert queue_depth(stack.sqs, stack.queues.dlq_url) >= 1
    assert _lookups(stack, "geo", probes) == before
    # And the abandoned version's items are deleted
    assert _items(stack, "geo", 2) == 0
