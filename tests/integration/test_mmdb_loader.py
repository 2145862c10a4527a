"""A MaxMind DB download (``.tar.gz``) through the real loader on DynamoDB Local: the lookup handler answers every
address as the file's own reader does, IPv4, IPv6, mapped, IPv4-compatible, 6to4 and Teredo."""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from tests.mmdb_files import MAPPED, SIX_TO_FOUR, TEREDO, leaves, mmdb, open_reader, tar_gz
from tests.support import LambdaContext, event
from tests.support.stacks import Stack

NETWORKS: list[tuple[str, Any]] = [
    ("1.0.0.0/24", {"country": {"iso_code": "AU", "names": {"en": "Australia", "de": "Australien"}}}),
    ("81.2.69.0/23", {"country": {"iso_code": "GB"}, "location": {"latitude": 51.5, "eu": False}}),
    ("2001:db8::/32", {"country": {"iso_code": "US"}, "subdivisions": [{"iso_code": "CA"}]}),
]
ADDRESSES = [
    "1.0.0.7",
    "1.0.1.0",
    "81.2.70.1",
    "::ffff:81.2.69.255",
    "::1.0.0.7",
    "2002:0100:0007::1",
    "2002:5102:4501::",
    "2001:0:5102:4501::9",
    "2001:db8:1::",
    "2001:db9::",
    "9.9.9.9",
]


def _lookup(stack: Stack, dataset: str, addresses: list[str], fields: list[str] | None = None) -> list[dict[str, Any]]:
    request = event("lookup-post")
    request["body"] = json.dumps({"ips": addresses, "dataset": dataset, **({"fields": fields} if fields else {})})
    response = stack.lookup.handler(request, LambdaContext())
    assert response["statusCode"] == 200, response["body"]
    results: list[dict[str, Any]] = json.loads(response["body"])["results"]
    return results


def test_a_maxmind_download_answers_as_its_reader(stack: Stack) -> None:
    data = mmdb(NETWORKS, aliases=[SIX_TO_FOUR, TEREDO, MAPPED])
    stack.put("city/GeoLite2-City_20260101.tar.gz", tar_gz({"GeoLite2-City_20260101/GeoLite2-City.mmdb": data}))
    stack.drain()
    record = stack.dataset("city")
    assert (record["status"], record["ranges"]) == ("READY", len(NETWORKS))
    reader = open_reader(data)
    for address, result in zip(ADDRESSES, _lookup(stack, "city", ADDRESSES), strict=True):
        found = reader.get(address.replace("::ffff:", ""))
        if found is None:
            assert result.get("error", {}).get("code") == "NOT_FOUND", (address, result)
        else:
            data_ = {name: value for name, value in result["data"].items() if value}
            assert data_ == {k: v for k, v in leaves(found).items() if not k.endswith(".de")}, address


def test_aliased_addresses_are_answered_in_ipv6_terms_from_ipv4_pieces_stored_once(stack: Stack) -> None:
    data = mmdb(NETWORKS, aliases=[SIX_TO_FOUR, TEREDO, MAPPED])
    stack.put("city/GeoLite2-City.mmdb", data)
    stack.drain()
    ipv4 = [cidr for cidr, _ in NETWORKS if ":" not in cidr]
    items = [item for item in _version_items(stack, "city") if "#4/" in item or "#6/" in item]
    assert len(items) == len(NETWORKS)  # no copies under ::/96, 6to4 or Teredo
    assert sum("#4/" in item for item in items) >= len(ipv4)
    for text in ("2002:0100:0007::1", "2001:0:5102:4501::9", "::1.0.0.7", "2002:909:909::1"):
        (result,) = _lookup(stack, "city", [text])
        address = ipaddress.IPv6Address(text)
        span = result.get("match") or result.get("gap")
        assert span is not None, result
        first, last = ipaddress.IPv6Address(span["start"]), ipaddress.IPv6Address(span["end"])
        assert first <= address <= last, (text, span)
        assert address in ipaddress.IPv6Network(span["network"]), (text, span)


def _version_items(stack: Stack, dataset: str) -> list[str]:
    record = stack.dataset(dataset)
    pages = stack.ddb.get_paginator("scan").paginate(TableName=stack.table, ProjectionExpression="PK")
    prefix = f"{dataset}#{record['version']}#"
    return [item["PK"]["S"] for page in pages for item in page["Items"] if item["PK"]["S"].startswith(prefix)]


def test_a_maxmind_dbs_build_epoch_is_its_versions_data_date_in_the_record_and_in_lookups(stack: Stack) -> None:
    # Given a MaxMind DB its publisher built at 2026-11-24T10:31:02Z, in a release named for an older day
    key = "dated/GeoLite2-City_20261120.tar.gz"
    data = mmdb(NETWORKS, build_epoch=1_795_516_262)
    stack.put(key, tar_gz({"GeoLite2-City_20261120/GeoLite2-City.mmdb": data}))
    stack.drain()
    # Then GET /datasets/{name} shows the build epoch (the publisher's statement beats the name) and the build time
    record = stack.dataset("dated")
    assert record["data_date"] == {"date": "2026-11-24T10:31:02Z", "source": "mmdb", "object": key}
    assert record["built_at"] is not None
    assert record["built_at"] >= record["data_date"]["date"]
    # And a lookup answers both when fields names them, and its default answer holds neither
    (dated,) = _lookup(stack, "dated", ["1.0.0.7"], fields=["version", "built_at", "data_date"])
    assert dated == {
        "ip": "1.0.0.7",
        "version": record["version"],
        "built_at": record["built_at"],
        "data_date": {"date": "2026-11-24T10:31:02Z", "source": "mmdb", "object": key},
    }
    (plain,) = _lookup(stack, "dated", ["1.0.0.7"])
    assert list(plain) == ["ip", "dataset", "version", "range", "match", "data"]
    # And the version's record keeps them: the versions listing shows them beside each kept version
    status, listing = stack.get("/datasets/dated/versions")
    (kept,) = listing["versions"]
    assert (status, kept["built_at"], kept["data_date"]) == (200, record["built_at"], record["data_date"])
