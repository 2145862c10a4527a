"""The key layout and the one-Query lookup against DynamoDB Local, on random and on real ranges."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fencepost.aws.dynamo import Tables
from fencepost.bootstrap.lookup_wiring import LookupFunction, lookup_function
from fencepost.core.space.addresses import BITS, TOP, V4, V6, format_address
from fencepost.core.storage.keys import PARTITION_BITS
from fencepost.core.versions.build import FamilyRanges
from fencepost.reading.lookup import Lookup
from local.dynamodb import DynamoDBLocal
from tests.reference import Reference
from tests.support import V4_FILE, V6_FILE, LambdaContext, event, family_ranges, publish, read_tsv

_versions = itertools.count(1)


@st.composite
def disjoint_ranges(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    """Non-overlapping ranges of one family, with ends at the extremes and around partition boundaries."""
    family = draw(st.sampled_from([V4, V6]))
    shift = BITS[family] - PARTITION_BITS[family]
    boundary = st.integers(0, (1 << PARTITION_BITS[family]) - 1).flatmap(
        lambda p: st.integers(max(0, (p << shift) - 2), min(TOP[family], (p << shift) + 1))
    )
    point = st.one_of(st.integers(0, TOP[family]), boundary, st.sampled_from([0, 1, TOP[family] - 1, TOP[family]]))
    cuts = sorted(set(draw(st.lists(point, min_size=2, max_size=24))))
    spans, index = [], 0
    while index + 1 < len(cuts):
        spans.append((cuts[index], cuts[index + 1] - (1 if draw(st.booleans()) and index + 2 < len(cuts) else 0)))
        index += 2 if draw(st.booleans()) else 1
        if spans and index < len(cuts) and cuts[index] <= spans[-1][1]:
            index += 1
    spans = [(s, e) for s, e in spans if s <= e]
    disjoint = [span for i, span in enumerate(spans) if i == 0 or span[0] > spans[i - 1][1]]
    return family, disjoint


def _probe_addresses(family: int, spans: list[tuple[int, int]], rng: random.Random) -> set[int]:
    edges = {a for s, e in spans for a in (s - 1, s, e, e + 1)}
    edges |= {rng.randint(0, TOP[family]) for _ in range(10)}
    return {a for a in edges if 0 <= a <= TOP[family]}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=disjoint_ranges(), seed=st.integers(0, 2**32))
def test_random_disjoint_ranges_agree_with_a_brute_force_scan(
    ddb_table: tuple[Any, str], case: tuple[int, list[tuple[int, int]]], seed: int
) -> None:
    # Given random non-overlapping ranges written through the key layout
    family, spans = case
    client, table = ddb_table
    tables = Tables.connect(client, table)
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    for row, (start, end) in enumerate(spans):
        ranges[family].add(start, end, (f"row{row}",))
    version = next(_versions)
    publish(tables, "prop", version, ranges, ["row"])
    lookup = Lookup(tables, ttl=0)
    info = lookup.live("prop")
    assert info.version == version
    # When every edge (start, end, start-1, end+1) and random addresses are looked up
    for address in _probe_addresses(family, spans, random.Random(seed)):
        answer = lookup.find(info, family, address)
        # Then the answer is the range that contains the address, or none
        containing = [row for row, (s, e) in enumerate(spans) if s <= address <= e]
        if not containing:
            assert answer is None, format_address(family, address)
        else:
            assert answer is not None, format_address(family, address)
            assert answer.hit.values == [f"row{containing[0]}"]
            assert (answer.hit.range_start, answer.hit.range_end) == spans[containing[0]]


def _count_version_items(client: Any, table: str, dataset: str, version: int) -> int:
    paginator = client.get_paginator("scan")
    pages = paginator.paginate(
        TableName=table,
        FilterExpression="begins_with(PK, :p)",
        ExpressionAttributeValues={":p": {"S": f"{dataset}#{version}#"}},
        Select="COUNT",
    )
    return sum(page["Count"] for page in pages)


@pytest.mark.parametrize(("path", "rows"), [(V4_FILE, 25_000), (V6_FILE, 25_000)])
def test_real_overlapping_slices_answer_by_the_overlap_rule(ddb_table: tuple[Any, str], path: Any, rows: int) -> None:
    # Given a slice of a shared real file, with nested and partial overlaps and /8 or /20 crossings
    client, table = ddb_table
    tables = Tables.connect(client, table)
    ranges = family_ranges(read_tsv(path, rows))
    family = V4 if path == V4_FILE else V6
    pieces = ranges[family].pieces()
    written = publish(tables, "real", 1, ranges, ["c1", "c2", "c3"][: len(ranges[family].values[0])])
    # Then one item is stored per flattened piece: the items ratio is exactly 1
    assert written == len(pieces) == _count_version_items(client, table, "real", 1)
    assert len(pieces) >= len(ranges[family])  # nested ranges cut their parents
    # And random addresses, plus every tenth piece's edges, agree with the overlap rule applied to the rows
    reference = Reference(ranges[family].starts, ranges[family].ends)
    rng = random.Random(7)
    low, high = min(ranges[family].starts), max(ranges[family].ends)
    addresses = [rng.randint(low, high) for _ in range(1500)]
    addresses += [a for p in pieces[::10] for a in (p.start, p.end, p.end + 1)]
    lookup = Lookup(tables, ttl=60)
    info = lookup.live("real")
    mismatches = []
    for address in addresses:
        row = reference.answer(address)
        answer = lookup.find(info, family, address)
        got = None if answer is None else answer.hit.values
        want = None if row is None else list(ranges[family].values[row])
        if got != want:
            mismatches.append(format_address(family, address))
    assert mismatches == []


@pytest.fixture
def handler_on_local(
    dynamodb_local: DynamoDBLocal, ddb_table: tuple[Any, str], monkeypatch: pytest.MonkeyPatch
) -> LookupFunction:
    """The lookup function on DynamoDB Local, its range cache off: every lookup's own cost, counted below."""
    client, table = ddb_table
    monkeypatch.setenv("TABLE_NAME", table)
    monkeypatch.setenv("RANGE_CACHE_BYTES", "0")
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamodb_local.endpoint)
    publish(Tables.connect(client, table), "geo", 1, family_ranges(read_tsv(V4_FILE, 5000)), ["country"])
    return lookup_function()


def test_a_warm_lookup_makes_exactly_one_query(handler_on_local: LookupFunction) -> None:
    calls: list[str] = []
    handler_on_local.tables.table.client.meta.events.register(
        "before-call.dynamodb", lambda model, **_: calls.append(model.name)
    )
    addresses = [f"1.{i}.{i * 7 % 256}.{i * 13 % 256}" for i in range(1, 60)]
    ev = event("lookup-get")
    ev["queryStringParameters"] = {"ip": "1.0.0.1", "dataset": "geo"}
    handler_on_local.handler(ev, LambdaContext())  # cold: reads the dataset record and the version once
    assert calls == ["GetItem", "Query", "Query"]
    calls.clear()
    statuses = []
    for address in addresses:
        ev["queryStringParameters"] = {"ip": address, "dataset": "geo"}
        statuses.append(handler_on_local.handler(ev, LambdaContext())["statusCode"])
    assert calls == ["Query"] * len(addresses)
    assert statuses.count(200) > len(addresses) // 2
    # A batch reads one version and makes one Query per distinct address
    calls.clear()
    batch = event("lookup-post")
    batch["body"] = json.dumps({"ips": [*addresses[:20], *addresses[:5]], "dataset": "geo"})
    response = handler_on_local.handler(batch, LambdaContext())
    assert response["statusCode"] == 200
    assert calls == ["Query"] * 20


def test_several_datasets_cost_one_query_each_and_a_batch_one_per_address_and_dataset(
    handler_on_local: LookupFunction, ddb_table: tuple[Any, str]
) -> None:
    client, table = ddb_table
    tables = Tables.connect(client, table)
    publish(tables, "asn", 4, family_ranges(read_tsv(V4_FILE, 3000)), ["country"])
    publish(tables, "own", 2, family_ranges([("1.0.0.0", "1.255.255.255", "mine")]), ["owner"])
    calls: list[str] = []
    handler_on_local.tables.table.client.meta.events.register(
        "before-call.dynamodb", lambda model, **_: calls.append(model.name)
    )
    ev = event("lookup-get")
    ev["queryStringParameters"] = {"ip": "1.0.0.1", "dataset": "geo,asn,own"}
    handler_on_local.handler(ev, LambdaContext())  # cold: three live pointers and three versions
    calls.clear()
    for mode in ("all", "first"):
        for address in ("1.0.4.1", "1.2.3.4", "9.9.9.9"):
            ev["queryStringParameters"] = {"ip": address, "dataset": "geo,asn,own", "mode": mode}
            response = handler_on_local.handler(ev, LambdaContext())
            assert response["statusCode"] in (200, 404)
            assert calls == ["Query"] * 3, (mode, address)
            calls.clear()
    batch = event("lookup-post")
    batch["body"] = json.dumps({"ips": ["1.0.4.1", "1.2.3.4", "1.0.4.1"], "datasets": ["geo", "asn", "own"]})
    answer = json.loads(handler_on_local.handler(batch, LambdaContext())["body"])
    assert calls == ["Query"] * 6  # two distinct addresses, three datasets
    assert [len(result["answers"]) for result in answer["results"]] == [3, 3, 3]


@pytest.mark.usefixtures("handler_on_local")  # the table, its data and the environment; a new container here
def test_with_the_range_cache_an_address_in_a_stretch_already_answered_costs_no_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RANGE_CACHE_BYTES", str(1 << 20))
    module = lookup_function()
    calls: list[str] = []
    module.tables.table.client.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
    ev = event("lookup-get")
    answers = []
    for address in ("1.0.0.1", "1.0.0.2", "1.0.0.255", "1.0.0.1"):  # one piece of the first 5,000 rows
        ev["queryStringParameters"] = {"ip": address, "dataset": "geo"}
        response = module.handler(ev, LambdaContext())
        answers.append(json.loads(response["body"]))
    assert calls == ["GetItem", "Query", "Query"]  # the pointer, the version, and one range Query for all four
    assert {json.dumps(answer["match"]) for answer in answers} == {json.dumps(answers[0]["match"])}
    assert [answer["ip"] for answer in answers] == ["1.0.0.1", "1.0.0.2", "1.0.0.255", "1.0.0.1"]
