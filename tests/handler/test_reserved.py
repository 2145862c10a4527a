"""Reserved addresses in answers: ``reserved`` beside a found range or beside a NOT_FOUND error, absent otherwise."""

from __future__ import annotations

import json
from typing import Any

from fencepost.bootstrap.lookup_wiring import LookupFunction
from tests.support import LambdaContext, event

DOCUMENTATION = {"name": "Documentation", "network": "2001:db8::/32", "rfc": "RFC 3849"}
PRIVATE_10 = {"name": "Private-Use", "network": "10.0.0.0/8", "rfc": "RFC 1918"}


def get(module: LookupFunction, ip: str) -> tuple[int, Any]:
    ev = event("lookup-get")
    ev["queryStringParameters"] = {"ip": ip, "dataset": "geo"}
    ev["rawQueryString"] = f"ip={ip}&dataset=geo"
    response = module.handler(ev, LambdaContext())
    return response["statusCode"], json.loads(response["body"])


def post(module: LookupFunction, ips: list[str]) -> list[dict[str, Any]]:
    ev = event("lookup-post")
    ev["body"] = json.dumps({"ips": ips, "dataset": "geo"})
    response = module.handler(ev, LambdaContext())
    assert response["statusCode"] == 200
    results: list[dict[str, Any]] = json.loads(response["body"])["results"]
    return results


def test_a_found_reserved_address_carries_its_registry_entry(lookup_handler: LookupFunction) -> None:
    status, body = get(lookup_handler, "2001:db8::1")
    assert status == 200
    assert body["data"] == {"country": "ZZ"}
    assert body["reserved"] == DOCUMENTATION


def test_a_found_ordinary_address_has_no_reserved_field(lookup_handler: LookupFunction) -> None:
    status, body = get(lookup_handler, "1.0.32.5")
    assert status == 200
    assert "reserved" not in body


def test_a_not_found_reserved_address_carries_it_beside_the_error(lookup_handler: LookupFunction) -> None:
    status, body = get(lookup_handler, "10.1.2.3")
    assert status == 404
    assert body["error"]["code"] == "NOT_FOUND"
    assert (body["ip"], body["dataset"], body["version"]) == ("10.1.2.3", "geo", 3)
    assert body["reserved"] == PRIVATE_10


def test_the_most_specific_entry_answers_and_mapped_addresses_answer_as_ipv4(lookup_handler: LookupFunction) -> None:
    assert get(lookup_handler, "192.0.0.9")[1]["reserved"] == {
        "name": "Port Control Protocol Anycast",
        "network": "192.0.0.9/32",
        "rfc": "RFC 7723",
    }
    status, body = get(lookup_handler, "::ffff:10.0.0.1")
    assert (status, body["ip"], body["reserved"]) == (404, "10.0.0.1", PRIVATE_10)


def test_a_not_found_ordinary_address_has_no_reserved_field(lookup_handler: LookupFunction) -> None:
    status, body = get(lookup_handler, "9.9.9.9")
    assert status == 404
    assert "reserved" not in body


def test_batch_elements_carry_reserved_found_or_not(lookup_handler: LookupFunction) -> None:
    results = post(lookup_handler, ["2001:db8::1", "10.1.2.3", "1.0.32.5", "9.9.9.9", "not-an-ip", "::1"])
    documentation, private, found, missing, invalid, loopback = results
    assert documentation["data"] == {"country": "ZZ"}
    assert documentation["reserved"] == DOCUMENTATION
    assert private["error"]["code"] == "NOT_FOUND"
    assert private["reserved"] == PRIVATE_10
    assert loopback["reserved"] == {"name": "Loopback Address", "network": "::1/128", "rfc": "RFC 4291"}
    assert "reserved" not in found
    assert "reserved" not in missing
    assert invalid["error"]["code"] == "INVALID_IP"
    assert "reserved" not in invalid


def test_batch_and_get_give_a_reserved_address_the_same_answer(lookup_handler: LookupFunction) -> None:
    [element] = post(lookup_handler, ["2001:db8::1"])
    assert element == get(lookup_handler, "2001:db8::1")[1]


def test_the_openapi_document_describes_reserved_on_found_and_not_found_answers() -> None:
    from fencepost.http.openapi.document import document

    schemas = json.loads(document())["components"]["schemas"]
    assert set(schemas["ReservedEntry"]["properties"]) == {"name", "network", "rfc"}
    for model in ("LookupResult", "NotFoundResponse", "BatchError"):
        assert "reserved" in schemas[model]["properties"], model
        assert "reserved" not in schemas[model].get("required", []), model
