"""The lookup function's access line (``fencepost.http.access_log``): behind the HTTP API and behind a function URL,
with forged and trusted X-Forwarded-For and CloudFront-Viewer-Address headers, it names the client ``ip=me``
resolves (``TRUSTED_PROXIES``) and the connection's address as ``peer``, never an untrusted hop's claim; with
``LOG_ADDRESSES=false`` it names no address at all."""

from __future__ import annotations

import contextlib
import copy
import io
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from tests.support import LambdaContext, event, family_ranges
from tests.support.handlers import GEO_ROWS, lookup_on_moto

EDGE = "1.0.0.1"  # the proxy the front sees
CLIENT = "8.8.8.8"  # who the trusted proxy saw
FORGED = "1.0.33.3"  # what the client wrote into the header it sent
CHAINED = {"x-forwarded-for": f"{FORGED}, {CLIENT}, {EDGE}", "cloudfront-viewer-address": f"{CLIENT}:51234"}
FRONTS = ["lookup-get-me", "url-lookup-get-iam-me"]  # the HTTP API's event, a function URL's

Made = Callable[..., LookupFunction]


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Iterator[Made]:
    """A lookup function on moto holding ``geo``, made with the environment given."""
    geo = [("geo", 1, family_ranges(GEO_ROWS), ["country"])]
    with contextlib.ExitStack() as opened:
        yield lambda **environment: opened.enter_context(lookup_on_moto(monkeypatch, geo, **environment))


def _from(name: str, source: str, **headers: str) -> dict[str, Any]:
    ev = copy.deepcopy(event(name))
    ev["requestContext"]["http"]["sourceIp"] = source
    ev["headers"].update(headers)
    return ev


def _logged(module: LookupFunction, ev: dict[str, Any], level: str = "INFO") -> tuple[list[dict[str, Any]], str]:
    """The access lines one request writes, and everything it logs."""
    stream = io.StringIO()
    module.obs.logger.registered_handler.setStream(stream)  # type: ignore[attr-defined]
    module.obs.logger.setLevel(level)
    response = module.handler(ev, LambdaContext())
    assert response["statusCode"] < 500, response["body"]
    text = stream.getvalue()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("message") == "access"], text


def _who(line: dict[str, Any]) -> tuple[Any, Any]:
    return line.get("client"), line.get("peer")


@pytest.mark.parametrize("name", FRONTS)
def test_a_trusted_hop_names_the_client_and_the_connection_is_the_peer(made: Made, name: str) -> None:
    module = made(TRUSTED_PROXIES="hops=1", LOG_ADDRESSES="true")
    (line,), text = _logged(module, _from(name, EDGE, **CHAINED))
    assert _who(line) == (CLIENT, EDGE)
    assert (line["method"], line["path"], line["status"]) == ("GET", "/lookup", 200)
    assert line["correlation_id"] == event(name)["requestContext"]["requestId"]
    assert FORGED not in text  # the forged entry is never logged as anyone's address


@pytest.mark.parametrize("name", FRONTS)
def test_with_no_trusted_proxy_forged_headers_never_name_the_client(made: Made, name: str) -> None:
    module = made(LOG_ADDRESSES="true")
    (line,), text = _logged(module, _from(name, EDGE, **CHAINED))
    assert _who(line) == (EDGE, EDGE)
    assert FORGED not in text
    assert CLIENT not in text


def test_an_entry_that_is_no_address_leaves_the_connection_as_the_client(made: Made) -> None:
    module = made(TRUSTED_PROXIES="hops=1", LOG_ADDRESSES="true")
    (line,), text = _logged(module, _from("lookup-get-me", EDGE, **{"x-forwarded-for": f"{FORGED}, garbage, {EDGE}"}))
    assert _who(line) == (EDGE, EDGE)
    assert FORGED not in text


def test_cloudfronts_viewer_address_names_the_client_only_from_cloudfronts_networks(made: Made) -> None:
    module = made(TRUSTED_PROXIES="cloudfront=1.0.0.0/24", LOG_ADDRESSES="true")
    (line,), _ = _logged(module, _from("url-lookup-get-iam-me", EDGE, **CHAINED))
    assert _who(line) == (CLIENT, EDGE)
    around = _from("url-lookup-get-iam-me", "2001:db8::7", **{"cloudfront-viewer-address": f"{FORGED}:443"})
    (line,), text = _logged(module, around)  # a caller going around CloudFront, claiming to be FORGED
    assert _who(line) == ("2001:db8::7", "2001:db8::7")
    assert FORGED not in text


def test_every_route_has_its_line_and_a_head_request_one(made: Made) -> None:
    module = made(TRUSTED_PROXIES="hops=1", LOG_ADDRESSES="true")
    listing = _from("datasets-list", EDGE, **CHAINED)
    (line,), _ = _logged(module, listing)
    assert (line["method"], line["path"], line["status"], *_who(line)) == ("GET", "/datasets", 200, CLIENT, EDGE)
    head = _from("lookup-get-me", EDGE, **CHAINED)
    head["requestContext"]["http"]["method"] = "HEAD"
    (line,), _ = _logged(module, head)
    assert (line["method"], line["status"], *_who(line)) == ("HEAD", 200, CLIENT, EDGE)


@pytest.mark.parametrize("name", FRONTS)
def test_without_log_addresses_the_line_names_no_address(made: Made, name: str) -> None:
    module = made(TRUSTED_PROXIES="hops=1", LOG_ADDRESSES="false")
    (line,), text = _logged(module, _from(name, EDGE, **CHAINED))
    assert (line["method"], line["path"], line["status"]) == ("GET", "/lookup", 200)
    assert "client" not in line
    assert "peer" not in line
    assert not any(address in text for address in (EDGE, CLIENT, FORGED))


def test_at_the_functions_default_warning_level_no_line_is_written(made: Made) -> None:
    module = made(TRUSTED_PROXIES="hops=1", LOG_ADDRESSES="true")
    lines, text = _logged(module, _from("lookup-get-me", EDGE, **CHAINED), level="WARNING")
    assert lines == []
    assert text == ""
