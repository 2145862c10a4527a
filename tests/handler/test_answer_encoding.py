"""Every answer is valid UTF-8 JSON, whatever a request sent (lone surrogates, invalid bytes, escapes), and ordinary
non-ASCII answers stay as they are; CORS preflights are answered with the policy, naming only an allowed origin."""

from __future__ import annotations

import json

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from tests.support import LambdaContext, event
from tests.support.hostile import Hostile, as_sent, dataset, hostile_event, ip, path, post


def _decoded(raw: bytes, errors: str) -> str:
    """A query or path value as API Gateway might hand over the bytes of invalid percent-encoded UTF-8."""
    return raw.decode("utf-8", errors)


# Text that is not valid Unicode: JSON's "\ud800" escapes parse to lone surrogates, which no UTF-8 body can carry;
# invalid UTF-8 percent-encoded in a query (%ff%fe, or %ed%a0%80: a surrogate encoded as UTF-8) reaches the function
# replaced by U+FFFD, as raw surrogate escapes, or as a lone surrogate, depending on who decoded it.
UNENCODABLE = [
    post("a lone surrogate in a batch", '{"ips": ["\\ud800"], "dataset": "geo"}', 200, "INVALID_IP"),
    post("a reversed pair in a batch", '{"ips": ["\\udc00\\ud800", "1.0.32.5"], "dataset": "geo"}', 200, "INVALID_IP"),
    post("a lone surrogate as a batch's dataset", '{"ips": ["1.0.32.5"], "dataset": "\\ud800"}'),
    post("lone surrogates as a batch's ips and dataset", '{"ips": ["\\udfff"], "dataset": "\\udbff\\udbff"}'),
    post(
        "a lone surrogate after a found address",
        '{"ips": ["\\ud800x", "1.0.32.5"], "dataset": "geo"}',
        200,
        "INVALID_IP",
    ),
    post("a lone surrogate in an unknown field", '{"ips": ["1.0.32.5"], "\\ud800": 1}'),
    ip("a lone surrogate as ip", "\ud800"),
    dataset("a lone surrogate as dataset", "\udfff"),
    dataset("a lone surrogate inside a dataset list", "geo,\udfff"),
    Hostile(
        "a lone surrogate as mode",
        "GET",
        "/lookup",
        {"ip": "1.0.32.5", "dataset": "geo", "mode": "\ud800"},
        None,
        400,
        "INVALID_REQUEST",
    ),
    post("a lone surrogate among datasets", '{"ips": ["1.0.32.5"], "datasets": ["geo", "\\ud800"]}'),
    ip("invalid UTF-8 in the query, decoded with surrogateescape", _decoded(b"\xed\xa0\x80", "surrogateescape")),
    ip("%ff%fe as ip, decoded with surrogateescape", _decoded(b"\xff\xfe", "surrogateescape")),
    ip("%ff%fe as ip, decoded with replacement", _decoded(b"\xff\xfe", "replace")),
    ip("%ed%a0%80 as ip, decoded with surrogatepass", _decoded(b"\xed\xa0\x80", "surrogatepass")),
    ip("%ff%fe as ip, left encoded", "%ff%fe"),
    dataset("%ff%fe as dataset, decoded with surrogateescape", _decoded(b"\xff\xfe", "surrogateescape")),
    dataset("%ed%a0%80 as dataset, decoded with surrogatepass", _decoded(b"\xed\xa0\x80", "surrogatepass")),
    dataset("%ff%fe as dataset, decoded with replacement", _decoded(b"\xff\xfe", "replace")),
    path("a lone surrogate as a dataset's name", "GET", "/datasets/\udcff", 400, "INVALID_REQUEST"),
    path("%ff%fe as a dataset's name", "GET", "/datasets/%ff%fe", 400, "INVALID_REQUEST"),
    path("a lone surrogate in an unknown path", "GET", "/\ud800", 404, "NOT_FOUND"),
]


@pytest.mark.parametrize("case", UNENCODABLE, ids=[case.name for case in UNENCODABLE])
def test_every_answer_is_valid_utf8_json_whatever_was_sent(lookup_handler: LookupFunction, case: Hostile) -> None:
    response = lookup_handler.handler(hostile_event(case), LambdaContext())
    # The response encodes as UTF-8, as the runtime must send it, and its body parses
    document = json.loads(as_sent(response))
    assert response["statusCode"] == case.status
    if case.status == 200:  # a batch answers each element; an echoed lone surrogate became U+FFFD
        assert document["results"][0]["ip"].startswith("\ufffd")
        assert document["results"][0]["error"]["code"] == case.code
    else:
        assert document["error"]["code"] == case.code


def test_ordinary_non_ascii_answers_stay_as_they_are() -> None:
    from fencepost.http.responses import utf8_text

    text = '{"data":{"city":"São Paulo","name":"東京","emoji":"😀"}}'
    assert utf8_text(text) is text


PREFLIGHT_HEADERS = {
    "origin": "https://app.example.com",
    "access-control-request-method": "POST",
    "access-control-request-headers": "content-type,authorization,x-amz-date",
}


@pytest.mark.parametrize(
    ("raw_path", "methods"), [("/lookup", "GET, POST, OPTIONS"), ("/datasets/geo", "GET, OPTIONS")]
)
def test_a_preflight_on_a_served_path_is_answered_204_with_the_cors_policy(
    lookup_handler: LookupFunction, raw_path: str, methods: str
) -> None:
    # Given a browser's preflight, unsigned, as API Gateway's OPTIONS route brings it (was 405 METHOD_NOT_ALLOWED)
    ev = event("lookup-options-preflight")
    ev["rawPath"] = ev["requestContext"]["http"]["path"] = raw_path
    # When the function answers it
    response = lookup_handler.handler(ev, LambdaContext())
    # Then with 204, no body, and what the browser may send from where
    headers = {name.lower(): value for name, value in response["headers"].items()}
    assert (response["statusCode"], response["body"]) == (204, "")
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-methods"] == methods
    assert set(headers["access-control-allow-headers"].split(", ")) >= {"content-type", "authorization", "x-amz-date"}
    assert headers["access-control-expose-headers"] == "retry-after, allow"
    assert headers["access-control-max-age"] == "86400"


def test_the_sample_preflight_event_is_a_browsers() -> None:
    ev = event("lookup-options-preflight")
    assert ev["requestContext"]["http"]["method"] == "OPTIONS"
    assert {name: ev["headers"][name] for name in PREFLIGHT_HEADERS} == PREFLIGHT_HEADERS


@pytest.fixture
def restricted_handler(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> LookupFunction:
    monkeypatch.setenv("CORS_ORIGINS", "https://app.example.com, https://admin.example.com")
    handler: LookupFunction = request.getfixturevalue("lookup_handler")
    return handler


@pytest.mark.parametrize(
    ("origin", "allowed"), [("https://admin.example.com", "https://admin.example.com"), ("https://evil.example", None)]
)
def test_a_preflight_names_only_an_allowed_origin(
    restricted_handler: LookupFunction, origin: str, allowed: str | None
) -> None:
    ev = event("lookup-options-preflight")
    ev["headers"]["origin"] = origin
    response = restricted_handler.handler(ev, LambdaContext())
    assert response["statusCode"] == 204
    assert response["headers"].get("Access-Control-Allow-Origin") == allowed
    assert response["headers"]["Vary"] == "Origin"
