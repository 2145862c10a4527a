"""Files and lookups of the tests that drive the service on a ``Stack`` (``tests/support/stacks.py``): a file's
rows as the bytes of a tab-separated file, batches of lookups through the lookup handler, a dataset's record, load
phase and stored items, every page of a range listing, an export asked for and fetched; and the check that a loaded
version is complete and answers by the overlap rule."""

from __future__ import annotations

import json
import random
import urllib.request
from typing import Any

from fencepost.aws.dynamo import Tables
from fencepost.core.space.addresses import format_address
from tests.faults import stored_items
from tests.reference import Reference, range_span
from tests.support import LambdaContext, event, family_ranges
from tests.support.stacks import Stack

GEO = "start,end,country\n1.0.0.0,1.0.255.255,AU\n1.0.32.0,1.0.63.255,CN\n8.8.8.0,8.8.8.255,US\n"

# A good file, and the addresses asked of it before and after a bad file is dropped beside it
GOOD = "start,end,country\n1.0.0.0,1.0.255.255,AU\n1.0.32.0,1.0.63.255,CN\n2001:db8::,2001:db8::ffff,ZZ\n"
PROBES = ["1.0.0.1", "1.0.32.5", "1.0.64.1", "2001:db8::1", "2.0.0.1", "9.9.9.9", "2001:db9::1"]


def tsv_bytes(rows: list[list[str]]) -> bytes:
    return "".join("\t".join(row) + "\n" for row in rows).encode()


def dataset_record(stack: Stack, name: str) -> Any:
    return Tables.connect(stack.ddb, stack.table).datasets.get(name, consistent=True)


def load_phase(stack: Stack, name: str) -> str | None:
    status, body = stack.get(f"/datasets/{name}")
    return body["load"]["phase"] if status == 200 else None


def items_of_version(stack: Stack, dataset: str, version: int) -> int:
    pages = stack.ddb.get_paginator("scan").paginate(
        TableName=stack.table,
        FilterExpression="begins_with(PK, :p)",
        ExpressionAttributeValues={":p": {"S": f"{dataset}#{version}#"}},
        Select="COUNT",
    )
    return sum(page["Count"] for page in pages)


def batch_lookup(stack: Stack, dataset: str, addresses: list[str]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for offset in range(0, len(addresses), 100):
        ev = event("lookup-post")
        ev["body"] = json.dumps({"ips": addresses[offset : offset + 100], "dataset": dataset})
        response = stack.lookup.handler(ev, LambdaContext())
        assert response["statusCode"] == 200, response["body"]
        results += json.loads(response["body"])["results"]
    return results


def batch_answers(stack: Stack, dataset: str, addresses: list[str]) -> list[Any]:
    return [
        (r.get("data"), r.get("range"), r.get("error", {}).get("code")) for r in batch_lookup(stack, dataset, addresses)
    ]


def lookups(stack: Stack, dataset: str, addresses: list[str]) -> list[Any]:
    results = []
    for offset in range(0, len(addresses), 100):
        ev = event("lookup-post")
        ev["body"] = json.dumps({"ips": addresses[offset : offset + 100], "dataset": dataset})
        results += json.loads(stack.lookup.handler(ev, LambdaContext())["body"])["results"]
    return [(r.get("data"), r.get("range")) for r in results]


def assert_complete(stack: Stack, dataset: str, version: int, rows: list[list[str]]) -> None:
    """Every item of the version is stored, and answers agree with the overlap rule."""
    ranges = family_ranges(rows)[4]
    assert len(stored_items(stack.ddb, stack.table, dataset, version)) == len(ranges.pieces())
    reference = Reference(ranges.starts, ranges.ends)
    rng = random.Random(5)
    addresses = [rng.randint(min(ranges.starts), max(ranges.ends)) for _ in range(500)]
    got = lookups(stack, dataset, [format_address(4, a) for a in addresses])
    for address, (data, span) in zip(addresses, got, strict=True):
        row = reference.answer(address)
        expected = None if row is None else {"col3": ranges.values[row][0]}
        assert data == expected, format_address(4, address)
        if row is not None:
            assert span == range_span(4, ranges.starts[row], ranges.ends[row])


def request_export(stack: Stack, dataset: str, **query: str) -> dict[str, Any]:
    ev = event("lookup-get")
    ev["rawPath"] = ev["requestContext"]["http"]["path"] = f"/datasets/{dataset}/export"
    ev["queryStringParameters"] = query or None
    response: dict[str, Any] = stack.lookup.handler(ev, LambdaContext())
    return response


def exported(stack: Stack, dataset: str, **query: str) -> bytes:
    """Ask, let the loader write it, ask again: the body behind the 303's link."""
    first = request_export(stack, dataset, **query)
    assert (first["statusCode"], first["headers"]["Retry-After"]) == (202, "5"), first["body"]
    assert json.loads(first["body"])["status"] == "WRITING"
    stack.drain()
    ready = request_export(stack, dataset, **query)
    assert ready["statusCode"] == 303, ready["body"]
    link = ready["headers"]["Location"]
    assert json.loads(ready["body"])["url"] == link
    with urllib.request.urlopen(link, timeout=30) as answer:
        body: bytes = answer.read()
    return body


def all_pages(stack: Stack, **query: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        status, body = stack.get("/ranges", dataset="geo", **query, **({"cursor": cursor} if cursor else {}))
        assert status == 200, body
        found += body["ranges"]
        cursor = body["next"]
        if cursor is None:
            return found
