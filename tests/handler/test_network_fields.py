"""Found answers name their CIDR blocks: ``match.network`` around the address, ``range.cidrs`` for the whole range."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from tests.support import LambdaContext, event, family_ranges
from tests.support.handlers import lookup_on_moto

# Ranges that are not one block each: an unaligned range nested in a /16, a range at the top of IPv4, and an IPv6
# range one address short of the whole space at both ends.
ODD_ROWS = [
    ("10.0.0.0", "10.0.255.255", "outer"),
    ("10.0.0.3", "10.0.1.200", "inner"),
    ("255.255.255.254", "255.255.255.255", "top"),
    ("::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", "six"),
]
INNER_CIDRS = [
    "10.0.0.3/32",
    "10.0.0.4/30",
    "10.0.0.8/29",
    "10.0.0.16/28",
    "10.0.0.32/27",
    "10.0.0.64/26",
    "10.0.0.128/25",
    "10.0.1.0/25",
    "10.0.1.128/26",
    "10.0.1.192/29",
    "10.0.1.200/32",
]


@pytest.fixture
def handler(monkeypatch: pytest.MonkeyPatch) -> Iterator[LookupFunction]:
    with lookup_on_moto(monkeypatch, [("odd", 1, family_ranges(ODD_ROWS), ["kind"])], MAX_BATCH="100") as module:
        yield module


def get(handler: LookupFunction, ip: str) -> tuple[int, Any]:
    ev = event("lookup-get")
    ev["queryStringParameters"] = {"ip": ip, "dataset": "odd"}
    response = handler.handler(ev, LambdaContext())
    return response["statusCode"], json.loads(response["body"])


def test_get_names_the_largest_block_around_the_address_and_the_blocks_of_the_range(handler: LookupFunction) -> None:
    status, body = get(handler, "10.0.1.150")
    assert status == 200
    assert body["data"] == {"kind": "inner"}
    assert body["range"] == {"start": "10.0.0.3", "end": "10.0.1.200", "cidrs": INNER_CIDRS}
    assert body["match"] == {"start": "10.0.0.3", "end": "10.0.1.200", "network": "10.0.1.128/26"}


def test_a_piece_cut_by_a_nested_range_has_a_network_inside_the_piece(handler: LookupFunction) -> None:
    _, body = get(handler, "10.0.200.1")
    assert body["range"] == {"start": "10.0.0.0", "end": "10.0.255.255", "cidrs": ["10.0.0.0/16"]}
    assert body["match"] == {"start": "10.0.1.201", "end": "10.0.255.255", "network": "10.0.128.0/17"}
    _, body = get(handler, "10.0.1.201")  # the first address of the piece is alone in its block
    assert body["match"]["network"] == "10.0.1.201/32"


def test_the_extremes_of_both_families(handler: LookupFunction) -> None:
    _, body = get(handler, "255.255.255.255")
    assert body["range"]["cidrs"] == ["255.255.255.254/31"]
    assert body["match"]["network"] == "255.255.255.254/31"
    _, body = get(handler, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe")
    assert body["match"]["network"] == "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/128"
    assert len(body["range"]["cidrs"]) == 254
    assert body["range"]["cidrs"][:2] == ["::1/128", "::2/127"]
    assert body["range"]["cidrs"][-1] == "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/128"
    _, body = get(handler, "2001:db8::1")
    assert body["match"]["network"] == "2000::/3"


def test_a_mapped_address_is_answered_with_ipv4_blocks(handler: LookupFunction) -> None:
    _, body = get(handler, "::ffff:10.0.1.150")
    assert body["ip"] == "10.0.1.150"
    assert body["match"]["network"] == "10.0.1.128/26"


def test_post_gives_found_elements_the_same_fields_and_errors_none(handler: LookupFunction) -> None:
    ev = event("lookup-post")
    ev["body"] = json.dumps({"ips": ["10.0.1.150", "2001:db8::1", "0.0.0.1", "10.0.200.1"], "dataset": "odd"})
    response = handler.handler(ev, LambdaContext())
    assert response["statusCode"] == 200
    results = json.loads(response["body"])["results"]
    assert results[0]["match"]["network"] == "10.0.1.128/26"
    assert results[0]["range"]["cidrs"] == INNER_CIDRS
    assert results[1]["match"]["network"] == "2000::/3"
    assert len(results[1]["range"]["cidrs"]) == 254
    assert results[2]["error"]["code"] == "NOT_FOUND"
    assert "match" not in results[2]
    assert "range" not in results[2]
    assert results[3]["match"] == {"start": "10.0.1.201", "end": "10.0.255.255", "network": "10.0.128.0/17"}
    _, single = get(handler, "10.0.1.150")
    assert results[0] == single  # a batch element is the single answer


def test_the_served_document_declares_the_fields_every_answer_carries(handler: LookupFunction) -> None:
    document = json.loads(handler.handler(event("openapi"), LambdaContext())["body"])
    schemas = document["components"]["schemas"]
    result = schemas["LookupResult"]["properties"]
    _, body = get(handler, "10.0.0.3")
    for field in ("range", "match"):
        declared = schemas[result[field]["$ref"].rsplit("/", 1)[-1]]
        assert set(declared["required"]) == set(body[field]) == set(declared["properties"])
    assert body["match"]["network"] == "10.0.0.3/32"
