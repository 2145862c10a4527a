"""Reverse lookups through the real loader and lookup handler (moto's S3, DynamoDB Local): a folder's ``"index"``
setting, ``GET /ranges?where=`` as ranges, CIDR networks and text, and the values of an indexed column."""

from __future__ import annotations

import ipaddress
import json
import random
from collections import Counter
from typing import Any

from fencepost.core.space.addresses import V4, format_address
from fencepost.core.storage.objects import index_key, values_key
from tests.support import V4_FILE, LambdaContext, event, family_ranges, read_tsv
from tests.support.lookups import all_pages, batch_lookup
from tests.support.stacks import Stack

ROWS = """start,end,country,asn
1.0.0.0,1.0.0.255,AU,13335
1.0.1.0,1.0.3.255,CN,4134
1.0.4.0,1.0.7.255,AU,38803
1.0.8.0,1.0.8.255,AU,38803
2.0.0.0,2.0.0.255,FR,3215
2.0.0.128,2.0.0.191,AU,1
2001:db8::,2001:db8::ffff,AU,64496
2001:db9::,2001:db9:0:1:ffff:ffff:ffff:ffff,CN,64497
"""


def _load(stack: Stack, rows: str = ROWS, settings: dict[str, Any] | None = None) -> None:
    stack.put("geo/_settings.json", json.dumps(settings or {"index": ["country"]}))
    stack.put("geo/ranges.csv", rows)
    stack.drain()
    assert stack.dataset("geo")["status"] == "READY"


def test_where_lists_the_pieces_of_a_value_in_address_order_as_ranges_networks_and_text(stack: Stack) -> None:
    _load(stack)
    # The index writes no DynamoDB item: the same rows without it write as many
    stack.put("plain/ranges.csv", ROWS)
    stack.drain()
    written = [stack.dataset(name)["load"]["items_written"] for name in ("geo", "plain")]
    assert written == [9, 9]  # 7 IPv4 pieces (FR split around the nested AU range) and 2 IPv6
    status, body = stack.get("/ranges", dataset="geo", where="country:AU")
    assert (status, body["version"], body["where"], body["within"], body["next"]) == (
        200,
        1,
        {"column": "country", "value": "AU"},
        None,
        None,
    )
    assert [(r["start"], r["end"], r["data"]["asn"]) for r in body["ranges"]] == [
        ("1.0.0.0", "1.0.0.255", "13335"),
        ("1.0.4.0", "1.0.7.255", "38803"),
        ("1.0.8.0", "1.0.8.255", "38803"),
        ("2.0.0.128", "2.0.0.191", "1"),  # the nested range wins where it lies, as lookups answer
        ("2001:db8::", "2001:db8::ffff", "64496"),
    ]
    assert all_pages(stack, where="country:AU", limit="1") == body["ranges"]
    # Exactly what GET /ranges lists for the pieces holding the value, field for field
    assert [r for r in all_pages(stack) if r["data"]["country"] == "AU"] == body["ranges"]
    status, cidr = stack.get("/ranges", dataset="geo", where="country:AU", format="cidr")
    assert cidr["networks"] == ["1.0.0.0/24", "1.0.4.0/22", "1.0.8.0/24", "2.0.0.128/26", "2001:db8::/112"]
    status, inside = stack.get("/ranges", dataset="geo", where="country:AU", within="1.0.4.0/23", format="cidr")
    assert inside["networks"] == ["1.0.4.0/23"]  # clipped to within
    text = _raw(stack, {"dataset": "geo", "where": "country:CN", "limit": "1"}, accept="text/plain")
    assert (text["statusCode"], text["headers"]["Content-Type"]) == (200, "text/plain; charset=utf-8")
    assert text["body"] == "1.0.1.0/24\n1.0.2.0/23\n"
    following = _raw(stack, {"dataset": "geo", "where": "country:CN", "cursor": text["headers"]["Next-Cursor"]})
    assert json.loads(following["body"])["ranges"][0]["start"] == "2001:db9::"
    assert "Next-Cursor" not in following["headers"]
    assert stack.get("/ranges", dataset="geo", where="country:XX")[1]["ranges"] == []


def test_a_page_of_networks_never_ends_inside_a_run_of_touching_pieces(stack: Stack) -> None:
    _load(stack)
    status, page = stack.get("/ranges", dataset="geo", where="country:AU", format="cidr", limit="2")
    assert page["networks"] == ["1.0.0.0/24", "1.0.4.0/22", "1.0.8.0/24"]  # 1.0.8.0 touches 1.0.7.255
    status, rest = stack.get("/ranges", dataset="geo", where="country:AU", format="cidr", cursor=page["next"])
    assert (status, rest["networks"], rest["next"]) == (200, ["2.0.0.128/26", "2001:db8::/112"], None)


def test_the_values_of_an_indexed_column(stack: Stack) -> None:
    _load(stack, settings={"index": ["country", "asn"]})
    status, body = stack.get("/datasets/geo/values/country")
    assert (status, body["distinct"], body["sort"], body["next"]) == (200, 3, "value", None)
    assert body["values"] == [
        {"value": "AU", "pieces": 5, "ipv4_addresses": 256 + 1024 + 256 + 64, "ipv6_64s": 1},
        {"value": "CN", "pieces": 2, "ipv4_addresses": 768, "ipv6_64s": 2},
        {"value": "FR", "pieces": 2, "ipv4_addresses": 192, "ipv6_64s": 0},  # split around the nested AU range
    ]
    status, by_space = stack.get("/datasets/geo/values/asn", sort="ipv4", limit="2")
    assert [v["value"] for v in by_space["values"]] == ["38803", "4134"]
    status, rest = stack.get("/datasets/geo/values/asn", sort="ipv4", limit="2", cursor=by_space["next"])
    assert [v["value"] for v in rest["values"]] == ["13335", "3215"]
    status, last = stack.get("/datasets/geo/values/asn", sort="ipv4", limit="5", cursor=rest["next"])
    assert ([v["value"] for v in last["values"]], last["next"]) == (["1", "64496", "64497"], None)  # ties by value
    status, one = stack.get("/datasets/geo/values/asn/38803")
    assert (status, one["pieces"], one["ipv4_addresses"], one["column"]) == (200, 2, 1280, "asn")
    status, missing = stack.get("/datasets/geo/values/asn/99")
    assert (status, missing["error"]["code"]) == (404, "NOT_FOUND")


def test_bad_reverse_lookups_are_clear_4xx(stack: Stack) -> None:
    _load(stack)
    status, body = stack.get("/ranges", dataset="geo", where="asn:13335")
    assert (status, body["error"]["code"]) == (400, "NOT_INDEXED")
    assert "indexed columns: country" in body["error"]["message"]
    assert stack.get("/datasets/geo/values/asn")[1]["error"]["code"] == "NOT_INDEXED"
    page = stack.get("/ranges", dataset="geo", where="country:AU", limit="1")[1]
    for query in (
        {"where": "country"},
        {"where": ":AU"},
        {"where": "country:" + "A" * 1100},
        {"where": "country:AU", "format": "mmdb"},
        {"where": "country:AU", "within": "1.0.0.1/24"},
        {"where": "country:AU", "cursor": page["next"][:-1] + "0"},
        {"where": "country:CN", "cursor": page["next"]},  # another value's cursor
        {"where": "country:\ud800", "cursor": page["next"]},  # a lone surrogate (JSON's "\ud800" parses to one)
        {"where": "country:\ud800"},
    ):
        status, refused = stack.get("/ranges", dataset="geo", **query)
        assert (status, refused["error"]["code"]) == (400, "INVALID_REQUEST"), query
    assert stack.get("/datasets/geo/values/country", sort="size")[0] == 400
    assert stack.get("/ranges", dataset="nosuch", where="country:AU")[0] == 404


def test_a_load_whose_index_names_a_missing_column_fails_and_keeps_the_live_version(stack: Stack) -> None:
    _load(stack)
    stack.put("geo/_settings.json", json.dumps({"index": ["country", "city"]}))
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    assert "index names columns the data does not have: ['city']" in record["load"]["problems"][0]["reason"]
    assert len(stack.get("/ranges", dataset="geo", where="country:AU")[1]["ranges"]) == 5


def test_an_old_versions_index_is_deleted_with_it(stack: Stack) -> None:
    _load(stack)
    _load(stack, ROWS.replace("FR", "DE"))
    _load(stack, ROWS.replace("FR", "IT"))
    keys = {o["Key"] for o in stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_kept/geo/")["Contents"]}
    # Version 1 was deleted (no lookup can read it), 2 is kept for rollback, 3 is live
    assert sorted(k for k in keys if ".index." in k or ".values." in k) == sorted(
        key for version in (2, 3) for key in (index_key("geo", version, 0), values_key("geo", version, 0))
    )


def _raw(stack: Stack, query: dict[str, str], accept: str = "") -> dict[str, Any]:
    ev = event("lookup-get")
    ev["rawPath"] = ev["requestContext"]["http"]["path"] = "/ranges"
    ev["queryStringParameters"] = query
    ev["headers"] = {**(ev.get("headers") or {}), **({"accept": accept} if accept else {})}
    response: dict[str, Any] = stack.lookup.handler(ev, LambdaContext())
    return response


def test_the_pieces_of_each_value_are_exactly_those_whose_lookups_answer_it_on_real_data(stack: Stack) -> None:
    rows = read_tsv(V4_FILE, 130_000)[100_000:130_000]
    body = "".join("\t".join(row) + "\n" for row in rows)
    stack.put("geo/_settings.json", json.dumps({"index": ["col3"]}))
    stack.put("geo/ranges.tsv", body)
    stack.drain()
    ranges = family_ranges(rows)[V4]
    expected: dict[str, list[tuple[str, str]]] = {}
    for start, end, source in ranges.pieces():
        expected.setdefault(ranges.values[source][0], []).append((format_address(V4, start), format_address(V4, end)))
    status, listing = stack.get("/datasets/geo/values/col3", limit="1000")
    assert (status, [v["value"] for v in listing["values"]]) == (200, sorted(expected))
    assert {v["value"]: v["pieces"] for v in listing["values"]} == {k: len(v) for k, v in expected.items()}
    rng = random.Random(5)
    checked: Counter[str] = Counter()
    for value in sorted(expected):
        found = [(r["start"], r["end"]) for r in all_pages(stack, where=f"col3:{value}", limit="1000")]
        assert found == expected[value], value
        for start, end in rng.sample(found, min(3, len(found))):
            checked[value] += 1
            answers = batch_lookup(stack, "geo", [start, end])
            assert [answer["data"]["col3"] for answer in answers] == [value, value]
        networks = stack.get("/ranges", dataset="geo", where=f"col3:{value}", format="cidr", limit="1000")[1]
        covered = sum(ipaddress.ip_network(n).num_addresses for n in networks["networks"])
        if networks["next"] is None:
            assert covered == next(v["ipv4_addresses"] for v in listing["values"] if v["value"] == value)
    assert sum(checked.values()) > 100
