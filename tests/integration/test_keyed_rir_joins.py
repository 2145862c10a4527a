"""Two keyed datasets joined at once, as docs/keyed.md shows them, on DynamoDB Local and the local S3 and SQS through
the real loader and lookup handlers: ``as-names`` (RIPE's ``asn.txt``) for an AS's name and ``asn-registry`` (a
registry's delegated statistics, its ``asn`` records) for its registry and country, each under its prefix."""

from __future__ import annotations

import json

from tests.support.stacks import Stack

NAMES = "3320 DTAG Internet service provider operations, DE\n13335 CLOUDFLARENET - Cloudflare, Inc., US\n"
DELEGATED = (
    "2.3|nro|20261128|4|19830613|20261127|+0000\n"
    "nro|*|asn|*|3|summary\n"
    "arin|US|asn|13335|1|20100714|assigned|e5e3b9c13678dfd56f99a4a2a8d44ab3\n"
    "ripencc|DE|asn|3320|2|19930901|allocated|f5e7b2c8-4a11-4b5e-9f3e-2f0a7f1c9d20\n"
    "arin|US|ipv4|3.0.0.0|16777216|19880223|allocated|x\n"
    "apnic||asn|7467|2||available|apnic\n"
)
JOINS = [
    {"dataset": "as-names", "on": "asn", "columns": ["name"], "prefix": "as_"},
    {"dataset": "asn-registry", "on": "asn", "columns": ["registry", "country"], "prefix": "rir_"},
]
ROUTED = "start,end,asn\n1.1.1.0,1.1.1.255,AS13335\n80.128.0.0,80.159.255.255,3321\n9.9.9.0,9.9.9.255,7467\n"


def test_a_range_folder_joins_as_names_and_the_registries_at_once(stack: Stack) -> None:
    stack.put("as-names/_settings.json", json.dumps({"key": "asn"}))
    stack.put("as-names/asn.txt", NAMES)
    stack.put("asn-registry/_settings.json", json.dumps({"key": "asn"}))
    stack.put("asn-registry/delegated-extended", DELEGATED)
    stack.put("asn/_settings.json", json.dumps({"keyed_joins": JOINS}))
    stack.put("asn/ranges.csv", ROUTED)
    stack.drain()
    assert [stack.dataset(name)["status"] for name in ("as-names", "asn-registry", "asn")] == ["READY"] * 3
    assert stack.dataset("asn-registry")["ranges"] == 3  # AS 13335, 3320 and 3321; the available ones are none

    status, body = stack.get("/lookup", dataset="asn", ip="1.1.1.1", fields="data,joined")
    assert status == 200, body
    assert body["data"] == {
        "asn": "AS13335",
        "as_name": "CLOUDFLARENET - Cloudflare, Inc.",
        "rir_registry": "arin",
        "rir_country": "US",
    }
    assert [(j["dataset"], j["key"], j["found"]) for j in body["joined"]] == [
        ("as-names", "13335", True),
        ("asn-registry", "13335", True),
    ]
    # A block's second AS number has a registry but no name; an available one neither
    _, second = stack.get("/lookup", dataset="asn", ip="80.130.1.1", fields="data")
    assert second["data"] == {"asn": "3321", "as_name": None, "rir_registry": "ripencc", "rir_country": "DE"}
    _, available = stack.get("/lookup", dataset="asn", ip="9.9.9.9", fields="data")
    assert available["data"] == {"asn": "7467", "as_name": None, "rir_registry": None, "rir_country": None}
