"""``ip=me`` behind proxies (``TRUSTED_PROXIES``): the HTTP API's and the function URL's events carrying forged and
chained X-Forwarded-For headers and CloudFront's viewer address, answered with the client's address only when the
setting trusts the hop that names it."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.declared import SettingsError
from tests.support import LambdaContext, event, family_ranges
from tests.support.handlers import GEO_ROWS, lookup_on_moto

EDGE = "1.0.0.1"  # the proxy the front sees (geo: AU)
CLIENT = "8.8.8.8"  # geo: US
FORGED = "1.0.33.3"  # geo: CN


@pytest.fixture
def with_trust(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A lookup function on moto holding ``geo``, made with ``TRUSTED_PROXIES`` set to the text it is given."""
    stack = []

    def made(setting: str) -> LookupFunction:
        context = lookup_on_moto(
            monkeypatch, [("geo", 1, family_ranges(GEO_ROWS), ["country"])], TRUSTED_PROXIES=setting
        )
        module = context.__enter__()
        stack.append(context)
        return module

    yield made
    for context in reversed(stack):
        context.__exit__(None, None, None)


def _from(name: str, source: str, **headers: str) -> dict[str, Any]:
    ev = copy.deepcopy(event(name))
    ev["requestContext"]["http"]["sourceIp"] = source
    ev["headers"].update(headers)
    ev["queryStringParameters"] = {"ip": "me", "dataset": "geo"}
    ev["rawQueryString"] = "ip=me&dataset=geo"
    return ev


def _me(module: LookupFunction, ev: dict[str, Any]) -> tuple[str, str]:
    response = module.handler(ev, LambdaContext())
    assert response["statusCode"] == 200, response["body"]
    body = json.loads(response["body"])
    return body["ip"], body["data"]["country"]


CHAINED = {"x-forwarded-for": f"{FORGED}, {CLIENT}, {EDGE}", "cloudfront-viewer-address": f"{CLIENT}:51234"}


@pytest.mark.parametrize("name", ["lookup-get-me", "url-lookup-get-iam-me"])
def test_by_default_forged_headers_never_decide_me(with_trust: Any, name: str) -> None:
    module = with_trust("")

    assert _me(module, _from(name, EDGE, **CHAINED)) == (EDGE, "AU")
    assert _me(module, _from(name, EDGE, **{"x-forwarded-for": CLIENT})) == (EDGE, "AU")


@pytest.mark.parametrize("name", ["lookup-get-me", "url-lookup-get-iam-me"])
def test_one_trusted_hop_names_the_client_it_saw_not_the_forged_entry(with_trust: Any, name: str) -> None:
    module = with_trust("hops=1")

    assert _me(module, _from(name, EDGE, **CHAINED)) == (CLIENT, "US")
    assert _me(module, _from(name, EDGE, **{"x-forwarded-for": f"{FORGED}, garbage, {EDGE}"})) == (EDGE, "AU")


def test_trusted_networks_skip_the_proxies_inside_them(with_trust: Any) -> None:
    module = with_trust("networks=1.0.0.0/24")

    assert _me(module, _from("lookup-get-me", EDGE, **CHAINED)) == (CLIENT, "US")
    assert _me(module, _from("lookup-get-me", CLIENT, **{"x-forwarded-for": FORGED})) == (CLIENT, "US")


def test_cloudfronts_viewer_address_is_taken_only_from_cloudfronts_networks(with_trust: Any) -> None:
    module = with_trust("cloudfront=1.0.0.0/24")

    assert _me(module, _from("url-lookup-get-iam-me", EDGE, **CHAINED)) == (CLIENT, "US")
    forged = {"cloudfront-viewer-address": f"{FORGED}:443"}
    assert _me(module, _from("url-lookup-get-iam-me", "2001:db8::7", **forged)) == ("2001:db8::7", "ZZ")


def test_a_batch_asking_for_me_answers_the_client_too(with_trust: Any) -> None:
    module = with_trust("hops=1")
    ev = copy.deepcopy(event("url-lookup-post", body=json.dumps({"ips": ["me"], "dataset": "geo"})))
    ev["requestContext"]["http"]["sourceIp"] = EDGE
    ev["headers"].update(CHAINED)
    ev["headers"].pop("content-length")

    response = module.handler(ev, LambdaContext())

    assert response["statusCode"] == 200, response["body"]
    assert [(r["ip"], r["data"]["country"]) for r in json.loads(response["body"])["results"]] == [(CLIENT, "US")]


def test_a_setting_it_cannot_read_stops_the_function_at_start(with_trust: Any) -> None:
    with pytest.raises(SettingsError, match="TRUSTED_PROXIES: hops must be a whole number"):
        with_trust("hops=any")
