"""``fields`` on ``GET /lookup`` (a comma-separated parameter) and ``POST /lookup`` (a list in the body)."""

from __future__ import annotations

import json
from typing import Any

from fencepost.bootstrap.lookup_wiring import LookupFunction
from tests.support import LambdaContext, event

PRIVATE_10 = {"name": "Private-Use", "network": "10.0.0.0/8", "rfc": "RFC 1918"}


def get(module: LookupFunction, ip: str, fields: str | None) -> tuple[int, dict[str, str], Any]:
    ev = event("lookup-get")
    ev["queryStringParameters"] = {"ip": ip, "dataset": "geo", **({} if fields is None else {"fields": fields})}
    ev["rawQueryString"] = "&".join(f"{key}={value}" for key, value in ev["queryStringParameters"].items())
    response = module.handler(ev, LambdaContext())
    return response["statusCode"], response["headers"], json.loads(response["body"])


def post(module: LookupFunction, body: dict[str, Any]) -> tuple[int, Any]:
    ev = event("lookup-post")
    ev["body"] = json.dumps({"dataset": "geo", **body})
    response = module.handler(ev, LambdaContext())
    return response["statusCode"], json.loads(response["body"])


def test_get_keeps_only_the_selected_paths_and_stays_cacheable(lookup_handler: LookupFunction) -> None:
    status, headers, body = get(lookup_handler, "1.0.32.5", "data.country,match.network,version")
    assert status == 200
    assert body == {"ip": "1.0.32.5", "version": 3, "match": {"network": "1.0.32.0/19"}, "data": {"country": "CN"}}
    assert headers["Cache-Control"] == "public, max-age=120"
    assert "ETag" in headers


def test_get_without_fields_is_the_whole_answer(lookup_handler: LookupFunction) -> None:
    _, _, whole = get(lookup_handler, "1.0.32.5", None)
    _, _, every = get(lookup_handler, "1.0.32.5", "ip,dataset,version,range,match,data,reserved,error")
    assert set(whole) == {"ip", "dataset", "version", "range", "match", "data"}
    assert every == whole


def test_get_not_found_keeps_ip_and_error_and_reserved_only_when_selected(lookup_handler: LookupFunction) -> None:
    status, _, body = get(lookup_handler, "10.1.2.3", "data.country")
    assert status == 404
    assert set(body) == {"ip", "error"}
    assert body["error"]["code"] == "NOT_FOUND"
    status, _, body = get(lookup_handler, "10.1.2.3", "reserved,version")
    assert (status, body["version"], body["reserved"]) == (404, 3, PRIVATE_10)
    assert "dataset" not in body


def test_an_unknown_top_level_field_is_invalid_fields(lookup_handler: LookupFunction) -> None:
    status, headers, body = get(lookup_handler, "1.0.32.5", "data.country,country")
    assert status == 400
    assert body["error"]["code"] == "INVALID_FIELDS"
    assert "'country'" in body["error"]["message"]
    assert headers["Cache-Control"] == "no-store"


def test_an_unknown_nested_key_is_simply_absent(lookup_handler: LookupFunction) -> None:
    status, _, body = get(lookup_handler, "1.0.32.5", "data.nosuch,match.nosuch,range.cidrs")
    assert status == 200
    assert body == {"ip": "1.0.32.5", "range": {"cidrs": ["1.0.32.0/19"]}, "match": {}, "data": {}}


def test_get_fields_are_bounded(lookup_handler: LookupFunction) -> None:
    for fields in (",".join(["version"] * 51), "data." + "x" * 1000, "", "version,,data"):
        status, _, body = get(lookup_handler, "1.0.32.5", fields)
        assert (status, body["error"]["code"]) == (400, "INVALID_FIELDS"), fields


def test_post_selects_every_element_found_not_found_and_invalid(lookup_handler: LookupFunction) -> None:
    status, body = post(lookup_handler, {"ips": ["1.0.32.5", "10.1.2.3", "nope"], "fields": ["data.country"]})
    assert status == 200
    found, missing, invalid = body["results"]
    assert found == {"ip": "1.0.32.5", "data": {"country": "CN"}}
    assert set(missing) == {"ip", "error"}
    assert missing["error"]["code"] == "NOT_FOUND"
    assert set(invalid) == {"ip", "error"}
    assert invalid["error"]["code"] == "INVALID_IP"
    _, body = post(lookup_handler, {"ips": ["10.1.2.3"], "fields": ["reserved.name"]})
    assert body["results"][0]["reserved"] == {"name": "Private-Use"}


def test_post_refuses_unknown_fields_and_bad_forms(lookup_handler: LookupFunction) -> None:
    for fields in (["nosuch"], "data.country", [], ["version"] * 51, [""], [3]):
        status, body = post(lookup_handler, {"ips": ["1.0.32.5"], "fields": fields})
        assert (status, body["error"]["code"]) == (400, "INVALID_FIELDS"), fields


def test_post_without_fields_or_with_null_is_unchanged(lookup_handler: LookupFunction) -> None:
    _, whole = post(lookup_handler, {"ips": ["1.0.32.5", "10.1.2.3"]})
    _, null = post(lookup_handler, {"ips": ["1.0.32.5", "10.1.2.3"], "fields": None})
    assert whole == null
    assert set(whole["results"][0]) == {"ip", "dataset", "version", "range", "match", "data"}


def test_the_document_declares_fields_and_invalid_fields(lookup_handler: LookupFunction) -> None:
    document = json.loads(lookup_handler.handler(event("openapi"), LambdaContext())["body"])
    get_lookup = document["paths"]["/lookup"]["get"]
    assert "fields" in {parameter["name"] for parameter in get_lookup["parameters"]}
    assert "INVALID_FIELDS" in get_lookup["responses"]["400"]["description"]
    assert "INVALID_FIELDS" in document["paths"]["/lookup"]["post"]["responses"]["400"]["description"]
    assert "fields" in document["components"]["schemas"]["BatchRequest"]["properties"]
