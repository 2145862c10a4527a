"""``GET /ranges`` on DynamoDB Local: pages hold exactly the stored pieces, in order, on one version."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fencepost.aws.dynamo import Tables
from fencepost.core.space.addresses import BITS, V4, V6, format_address
from fencepost.core.storage.keys import PARTITION_BITS
from fencepost.core.versions.build import FamilyRanges
from fencepost.http.app import create_app
from fencepost.observability import Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings
from tests.support import V4_FILE, LambdaContext, event, family_ranges, publish, read_tsv


def _ranges(seed: int) -> dict[int, FamilyRanges]:
    rng = random.Random(seed)
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    for row in range(1500):
        start = rng.randrange(1 << 32) if row % 5 else (rng.randrange(1, 4) << 24) + rng.randrange(1 << 20)
        ranges[V4].add(start, min(start + rng.randrange(1 << rng.randrange(1, 22)), (1 << 32) - 1), (f"r{row}",))
    ranges[V4].add(0x00FF0000, 0x0101FFFF, ("straddle",))  # from 0.255.0.0, across 1.0.0.0/16
    for row in range(300):
        start = (0x2001 << 112) + rng.randrange(1 << 100)
        ranges[V6].add(start, start + rng.randrange(1 << 80), (f"s{row}",))
    return ranges


def _pieces(ranges: dict[int, FamilyRanges]) -> list[tuple[str, str, str]]:
    return [
        (format_address(family, start), format_address(family, end), ranges[family].values[row][0])
        for family in (V4, V6)
        for start, end, row in _piece_rows(ranges[family])
    ]


def _piece_rows(family_ranges: FamilyRanges) -> list[tuple[int, int, int]]:
    pieces = family_ranges.pieces()
    return list(zip(pieces.starts, pieces.ends, pieces.sources, strict=True))


@pytest.fixture
def served(ddb_table: tuple[Any, str], monkeypatch: pytest.MonkeyPatch) -> Any:
    client, name = ddb_table
    monkeypatch.setenv("TABLE_NAME", name)
    tables = Tables.connect(client, name)

    def serve(budget: int | None = None) -> Any:
        if budget:
            monkeypatch.setenv("RESPONSE_BUDGET_BYTES", str(budget))
        settings = LookupSettings.from_env()
        app = create_app(settings, Lookup(tables, 0), tables, Observability(service="fencepost-test", tracing=False))

        def get(**query: str) -> tuple[int, dict[str, Any]]:
            request = event("lookup-get", rawPath="/ranges", rawQueryString="", queryStringParameters=query)
            request["requestContext"]["http"]["path"] = "/ranges"
            answer = app.handle(request, LambdaContext())
            return answer["statusCode"], json.loads(answer["body"])

        return get

    return tables, serve


def _all_pages(get: Any, **query: str) -> tuple[list[tuple[str, str, str]], int]:
    listed: list[tuple[str, str, str]] = []
    pages, cursor = 0, None
    while True:
        status, body = get(**query, **({"cursor": cursor} if cursor else {}))
        assert status == 200, body
        pages += 1
        listed += [(r["start"], r["end"], r["data"]["tag"]) for r in body["ranges"]]
        cursor = body["next"]
        if cursor is None:
            return listed, pages


def test_paging_returns_exactly_the_stored_pieces_in_order(served: Any) -> None:
    tables, serve = served
    ranges = _ranges(7)
    publish(tables, "geo", 1, ranges, ["tag"])
    get = serve()
    listed, pages = _all_pages(get, dataset="geo", limit="300")
    assert listed == _pieces(ranges)
    assert pages >= len(listed) // 300


def test_pieces_straddling_within_are_returned_whole(served: Any) -> None:
    tables, serve = served
    ranges = _ranges(8)
    publish(tables, "geo", 1, ranges, ["tag"])
    listed, _ = _all_pages(serve(), dataset="geo", within="1.0.0.0/16", limit="7")
    expected = [p for p in _pieces(ranges) if "." in p[0] and _meets(p, 0x01000000, 0x0100FFFF)]
    assert listed == expected
    # The 0.255.0.0-1.1.255.255 row covers both edges: the first and last pieces reach past them, whole.
    assert _address(listed[0][0]) < 0x01000000 <= _address(listed[0][1])
    assert _address(listed[-1][0]) <= 0x0100FFFF < _address(listed[-1][1])


def _address(text: str) -> int:
    return int.from_bytes(bytes(int(x) for x in text.split(".")), "big")


def _meets(piece: tuple[str, str, str], first: int, last: int) -> bool:
    return _address(piece[0]) <= last and _address(piece[1]) >= first


def test_limits_and_bad_requests(served: Any) -> None:
    tables, serve = served
    publish(tables, "geo", 1, _ranges(9), ["tag"])
    get = serve()
    assert len(get(dataset="geo")[1]["ranges"]) == 100
    assert len(get(dataset="geo", limit="1000")[1]["ranges"]) == 1000
    for query in [{"limit": "1001"}, {"limit": "0"}, {"within": "1.0.0.1/16"}, {"cursor": "nope"}]:
        status, body = get(dataset="geo", **query)
        assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST"), query
    assert get(dataset="nosuch")[0] == 404


def test_cursor_expires_once_its_version_is_deleted(served: Any) -> None:
    tables, serve = served
    publish(tables, "geo", 1, _ranges(1), ["tag"])
    get = serve()
    cursor = get(dataset="geo", limit="10")[1]["next"]
    publish(tables, "geo", 2, _ranges(2), ["tag"])
    record = tables.datasets.get("geo")
    assert record is not None
    tables.datasets.put(dataclasses.replace(record, previous=1))  # as going live records the rollback target
    status, body = get(dataset="geo", limit="10", cursor=cursor)
    assert status == 200
    assert body["version"] == 1  # the previous version still pages
    publish(tables, "geo", 3, _ranges(3), ["tag"])
    tables.datasets.mark_gone("geo", 1, time.time())  # as its deletion does, a grace before its items go
    get = serve()  # (a container whose cached history is no older than that)
    status, body = get(dataset="geo", limit="10", cursor=cursor)
    assert (status, body["error"]["code"]) == (410, "CURSOR_EXPIRED")


def test_a_page_ends_at_a_lowered_response_budget(served: Any) -> None:
    tables, serve = served
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    for row in range(40):
        ranges[V4].add(row << 24, (row << 24) + 5, ("x" * 60_000,))
    publish(tables, "big", 1, ranges, ["tag"])
    get = serve(budget=1_000_000)
    status, body = get(dataset="big", limit="1000")
    assert status == 200
    assert 0 < len(body["ranges"]) < 40
    assert body["next"]
    listed, _ = _all_pages(get, dataset="big", limit="1000")
    assert [start for start, _, _ in listed] == [f"{row}.0.0.0" for row in range(40)]


def test_read_units_per_page_of_a_thousand(served: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # Given the first 20,000 rows of the shared iptoasn IPv4 file (ASN, country, description per piece)
    tables, serve = served
    publish(tables, "asn", 1, family_ranges(read_tsv(V4_FILE, 20_000)), ["asn", "country", "description"])
    units: list[float] = []
    read = tables.list_pieces

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = read(*args, **kwargs)
        units.append(found.read_units)
        return found

    tables.list_pieces = counted
    get = serve()
    # When pages of 1,000 are listed
    per_page = []
    cursor = None
    for _ in range(5):
        before = sum(units)
        status, body = get(dataset="asn", limit="1000", **({"cursor": cursor} if cursor else {}))
        assert status == 200
        assert len(body["ranges"]) == 1000
        per_page.append(sum(units) - before)
        cursor = body["next"]
    # Then each page costs a few read units (eventually consistent: 0.5 per 4 KB read), as DynamoDB Local reports
    with capsys.disabled():
        print(f"\nread units per page of 1,000: {per_page}")
    assert all(0 < page <= 20 for page in per_page)


_datasets = itertools.count(1)


@st.composite
def _listing_cases(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]], int, int, int]:
    """Nested and overlapping ranges of one family around a few partitions, a network and a page size."""
    family = draw(st.sampled_from([V4, V6]))
    shift = BITS[family] - PARTITION_BITS[family]
    base = draw(st.integers(1, 6)) << shift
    around = st.integers(max(0, base - (2 << shift)), base + (2 << shift))
    ends = [(draw(around), draw(around)) for _ in range(draw(st.integers(1, 25)))]
    spans = [(min(pair), max(pair)) for pair in ends]
    prefix = draw(st.integers(PARTITION_BITS[family] - 2, BITS[family]))
    size = 1 << (BITS[family] - prefix)
    first = draw(around) // size * size
    return family, spans, first, prefix, draw(st.integers(1, 7))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=_listing_cases())
def test_pages_agree_with_the_stored_pieces_on_random_ranges(served: Any, case: Any) -> None:
    # Given random ranges (nested, crossing partitions) flattened and written
    tables, serve = served
    family, spans, first, prefix, limit = case
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    for row, (start, end) in enumerate(spans):
        ranges[family].add(start, end, (f"r{row}",))
    name = f"p{next(_datasets)}"
    publish(tables, name, 1, ranges, ["tag"])
    # When the pieces meeting a network are listed, a few per page
    last = first + (1 << (BITS[family] - prefix)) - 1
    within = f"{format_address(family, first)}/{prefix}"
    listed, _ = _all_pages(serve(), dataset=name, within=within, limit=str(limit))
    # Then they are exactly the stored pieces that meet it, whole and in order
    pieces = ranges[family].pieces()
    expected = [
        (format_address(family, start), format_address(family, end), f"r{source}")
        for start, end, source in zip(pieces.starts, pieces.ends, pieces.sources, strict=True)
        if start <= last and end >= first
    ]
    assert listed == expected


def test_a_format_of_reverse_lookups_without_where_is_refused_not_ignored(served: Any) -> None:
    tables, serve = served
    publish(tables, "geo", 1, _ranges(1), ["tag"])
    get = serve()
    assert get(dataset="geo", limit="1", format="json")[0] == 200
    for form in ("cidr", "text", "¢"):
        status, body = get(dataset="geo", limit="1", format=form)
        assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST")
        assert "where=" in body["error"]["message"]
