"""A corpus of hostile and malformed requests: every one gets a 4xx with a stable error code, none a 5xx; every
answer can be sent as UTF-8, whatever text was sent; and a CORS preflight (OPTIONS) on a served path is a 204."""

from __future__ import annotations

import base64
import json

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.core.storage.members import Position
from fencepost.http.build_diff_routes import DiffCursor
from fencepost.http.paging import Cursor
from tests.support import LambdaContext
from tests.support.hostile import Hostile, as_sent, dataset, fields, hostile_event, ip, path, post

CODES = {
    "INVALID_IP",
    "MISSING_IP",
    "BATCH_TOO_LARGE",
    "INVALID_REQUEST",
    "NOT_FOUND",
    "UNKNOWN_DATASET",
    "METHOD_NOT_ALLOWED",
    "INVALID_FIELDS",
}


CORPUS = [
    fields("fields of 10,000 characters", "data." + "x" * 10_000),
    fields("fields of empty items", ",,"),
    fields("fields naming an unknown unicode field", "données,\u00e9"),
    fields("fields naming __proto__", "__proto__"),
    fields("fields with a lone surrogate", "\ud800"),
    post("fields __proto__ in a batch", '{"ips": ["1.0.32.5"], "fields": ["__proto__"]}', code="INVALID_FIELDS"),
    post("fields as an object in a batch", '{"ips": ["1.0.32.5"], "fields": {"data": 1}}', code="INVALID_FIELDS"),
    Hostile("no query at all", "GET", "/lookup", None, None, 400, "MISSING_IP"),
    ip("empty ip", "", "MISSING_IP"),
    ip("a space", " "),
    ip("10,000 characters", "x" * 10_000),
    ip("an address repeated", "1.2.3.4" * 100),
    ip("octets over 255", "256.256.256.256"),
    ip("three octets", "1.2.3"),
    ip("five octets", "1.2.3.4.5"),
    ip("leading zero", "01.2.3.4"),
    ip("leading zero last", "1.2.3.04"),
    ip("hex", "0x01020304"),
    ip("integer", "16909060"),
    ip("IPv4 prefix", "1.2.3.4/32"),
    ip("IPv6 prefix", "2001:db8::/32"),
    ip("zone id", "fe80::1%eth0"),
    ip("encoded zone id", "fe80::1%25eth0"),
    ip("mapped with a bad octet", "::ffff:1.2.3.256"),
    ip("triple colon", "2001:db8:::1"),
    ip("two double colons", "2001:db8::1::2"),
    ip("five hex digits", "12345::"),
    ip("nine groups", "2001:db8:0:0:0:0:0:0:1"),
    ip("Arabic digits", "١.٢.٣.٤"),
    ip("fullwidth digits", "１.２.３.４"),
    ip("trailing newline", "1.2.3.4\n"),
    ip("NUL", "1.2.3.4\x00"),
    ip("leading tab", "\t1.2.3.4"),
    ip("trailing space", "1.2.3.4 "),
    ip("SQL injection", "' OR 1=1 --"),
    ip("SQL injection after an address", "1.2.3.4'; DROP TABLE ranges;--"),
    ip("template injection", "{{7*7}}"),
    ip("log4shell", "${jndi:ldap://evil/a}"),
    ip("script", "<script>alert(1)</script>"),
    ip("path traversal", "../../etc/passwd"),
    ip("duplicate parameters, joined by API Gateway", "1.2.3.4,5.6.7.8"),
    ip("me twice", "me,me"),
    ip("host name", "localhost"),
    ip("half a mapped address", "::ffff:"),
    ip("emoji", "😀"),
    ip("percent-encoded", "%31.2.3.4"),
    ip("control characters", "\x1b[31m1.2.3.4"),
    dataset("dataset traversal", "../etc"),
    dataset("empty dataset", ""),
    dataset("65-character dataset", "a" * 65),
    dataset("unicode dataset", "géo"),
    dataset("dataset with a slash", "geo/../x"),
    dataset("encoded dots", "%2e%2e"),
    dataset("unknown dataset", "nope", 404, "UNKNOWN_DATASET"),
    dataset("reports folder", "_reports"),
    dataset("template dataset", "{{7*7}}"),
    dataset("duplicate dataset parameters", "geo,geo"),
    dataset("SQL dataset", "geo' OR '1'='1"),
    # Lists of datasets (dataset=a,b; a repeated dataset= parameter arrives the same way)
    dataset("six datasets", "a,b,c,d,e,f"),
    dataset("four thousand datasets", ",".join(["geo"] * 4000)),
    dataset("a trailing comma", "geo,"),
    dataset("a leading comma", ",geo"),
    dataset("an empty name inside a list", "geo,,default"),
    dataset("a traversal inside a list", "geo,../x"),
    dataset("a name twice among others", "geo,default,geo"),
    dataset("a comma and a space", "geo, default"),
    Hostile(
        "an unknown mode",
        "GET",
        "/lookup",
        {"ip": "1.0.32.5", "dataset": "geo,default", "mode": "last"},
        None,
        400,
        "INVALID_REQUEST",
    ),
    Hostile(
        "an empty mode",
        "GET",
        "/lookup",
        {"ip": "1.0.32.5", "dataset": "geo", "mode": ""},
        None,
        400,
        "INVALID_REQUEST",
    ),
    Hostile(
        "an overlay over an unknown dataset",
        "GET",
        "/lookup",
        {"ip": "1.0.32.5", "dataset": "nope,geo", "mode": "first"},
        None,
        404,
        "UNKNOWN_DATASET",
    ),
    post("an empty dataset in a batch", '{"ips": ["1.2.3.4"], "dataset": ""}'),
    post("datasets not a list", '{"ips": ["1.2.3.4"], "datasets": "geo"}'),
    post("datasets empty", '{"ips": ["1.2.3.4"], "datasets": []}'),
    post("six datasets in a batch", '{"ips": ["1.2.3.4"], "datasets": ["a", "b", "c", "d", "e", "f"]}'),
    post("dataset and datasets", '{"ips": ["1.2.3.4"], "dataset": "geo", "datasets": ["geo"]}'),
    post("a number among datasets", '{"ips": ["1.2.3.4"], "datasets": ["geo", 5]}'),
    post("a name twice among datasets", '{"ips": ["1.2.3.4"], "datasets": ["geo", "geo"]}'),
    post("a traversal among datasets", '{"ips": ["1.2.3.4"], "datasets": ["geo", "../x"]}'),
    post("an unknown mode in a batch", '{"ips": ["1.2.3.4"], "datasets": ["geo"], "mode": 1}'),
    post(
        "a batch overlay over an unknown dataset",
        '{"ips": ["1.2.3.4"], "datasets": ["geo", "nope"], "mode": "first"}',
        404,
        "UNKNOWN_DATASET",
    ),
    path("unknown dataset record", "GET", "/datasets/nope", 404, "UNKNOWN_DATASET"),
    path("encoded traversal", "GET", "/datasets/..%2F..%2Fetc", 400, "INVALID_REQUEST"),
    path("raw traversal", "GET", "/datasets/../etc", 404, "NOT_FOUND"),
    path("encoded NUL", "GET", "/datasets/%00", 400, "INVALID_REQUEST"),
    path("encoded unicode", "GET", "/datasets/g%C3%A9o", 400, "INVALID_REQUEST"),
    path("quoted SQL", "GET", "/datasets/'%20OR%201=1", 400, "INVALID_REQUEST"),
    path("an emoji as a dataset's name", "GET", "/datasets/😀", 400, "INVALID_REQUEST"),
    path("DELETE", "DELETE", "/lookup", 405, "METHOD_NOT_ALLOWED"),
    path("PUT", "PUT", "/lookup", 405, "METHOD_NOT_ALLOWED"),
    path("PATCH", "PATCH", "/lookup", 405, "METHOD_NOT_ALLOWED"),
    path("TRACE", "TRACE", "/lookup", 405, "METHOD_NOT_ALLOWED"),  # HEAD is GET without the body: test_index_and_head
    path("OPTIONS on an unknown path", "OPTIONS", "/admin", 404, "NOT_FOUND"),
    path("POST to datasets", "POST", "/datasets", 405, "METHOD_NOT_ALLOWED"),
    path("DELETE a dataset", "DELETE", "/datasets/geo", 405, "METHOD_NOT_ALLOWED"),
    path("trailing slash", "GET", "/lookup/", 404, "NOT_FOUND"),
    path("a double slash", "GET", "//", 404, "NOT_FOUND"),  # GET / is the API's index
    path("admin", "GET", "/admin", 404, "NOT_FOUND"),
    path("upper case", "GET", "/LOOKUP", 404, "NOT_FOUND"),
    path("dot segments", "GET", "/openapi.json/../lookup", 404, "NOT_FOUND"),
    path("encoded NUL in the path", "GET", "/lookup%00", 404, "NOT_FOUND"),
    path("a very long path", "GET", "/" + "a" * 5000, 404, "NOT_FOUND"),
    post("empty body", ""),
    post("truncated JSON", '{"ips": ["1.2.3.4"'),
    post("null", "null"),
    post("a list", "[]"),
    post("a number", "123"),
    post("ips null", '{"ips": null}'),
    post("ips a string", '{"ips": "1.2.3.4"}'),
    post("ips numbers", '{"ips": [1, 2]}'),
    post("ips objects", '{"ips": [{"a": 1}]}'),
    post("ips empty", '{"ips": []}'),
    post("ips NaN", '{"ips": NaN}'),
    post("dataset a number", '{"ips": ["1.2.3.4"], "dataset": 5}'),
    post("unknown field", '{"ips": ["1.2.3.4"], "extra": true}'),
    post("ip instead of ips", '{"ip": "1.2.3.4"}'),
    post("trailing garbage", '{"ips": ["1.2.3.4"]} trailing'),
    post("101 addresses", json.dumps({"ips": ["1.0.32.5"] * 101}), 400, "BATCH_TOO_LARGE"),
    post("10,000 addresses", json.dumps({"ips": ["1.0.32.5"] * 10_000}), 400, "BATCH_TOO_LARGE"),
    post("a megabyte of padding", " " * 1_000_000 + "{}", 400, "BATCH_TOO_LARGE"),
    post("30,000 nested lists", "[" * 30_000 + "]" * 30_000),
    post("invalid base64", "!!not base64", b64=True),
    post("base64 of bytes that are not UTF-8", base64.b64encode(b"\xff\xfe\x00").decode(), b64=True),
    post("control bytes", "\x00\x01\x02"),
    post("dataset traversal in a batch", '{"ips": ["1.2.3.4"], "dataset": "../x"}'),
    post("unknown dataset in a batch", '{"ips": ["1.2.3.4"], "dataset": "nope"}', 404, "UNKNOWN_DATASET"),
    *(
        Hostile(f"range listing: {name}", "GET", "/ranges", {"dataset": "geo", **query}, None, 400, "INVALID_REQUEST")
        for name, query in [
            ("within of 10,000 characters", {"within": "1" * 10_000}),
            ("within with a lone surrogate", {"within": "\ud800/8"}),
            ("within with a zone id", {"within": "fe80::%eth0/64"}),
            ("within prefix with a sign", {"within": "1.0.0.0/+8"}),
            ("within prefix in unicode digits", {"within": "1.0.0.0/\u0668"}),
            ("limit in unicode digits", {"limit": "\u0661\u0660"}),
            ("limit of a googol", {"limit": "1" + "0" * 100}),
            ("cursor of 10,000 characters", {"cursor": "a" * 10_000 + ".000000000000"}),
            ("cursor with a lone surrogate", {"cursor": "\ud800.000000000000"}),
            ("cursor of JSON text", {"cursor": '["geo",3,4,null]'}),
        ]
    ),
    Hostile("range listing: dataset traversal", "GET", "/ranges", {"dataset": "../x"}, None, 400, "INVALID_REQUEST"),
    *(
        Hostile(f"diff: {name}", "GET", "/datasets/geo/diff", query, None, 400, "INVALID_REQUEST")
        for name, query in [
            ("limit of a googol", {"limit": "1" + "0" * 100}),
            ("limit 0", {"limit": "0"}),
            ("limit in unicode digits", {"limit": "\u0661\u0660"}),
            ("cursor of 10,000 characters", {"cursor": "a" * 10_000 + ".000000000000"}),
            ("cursor with a lone surrogate", {"cursor": "\ud800.000000000000"}),
            ("cursor of JSON text", {"cursor": '["diff","geo",3,0,0]'}),
            ("a range listing's cursor", {"cursor": Cursor("geo", 3, 4, None).token()}),
            ("cursor of another dataset", {"cursor": DiffCursor("default", 1, Position(0, 0)).token()}),
            ("cursor past a member's lines", {"cursor": DiffCursor("geo", 3, Position(0, 10**6)).token()}),
            ("cursor with a negative offset", {"cursor": DiffCursor("geo", 3, Position(-5, 0)).token()}),
        ]
    ),
    Hostile("diff: dataset traversal", "GET", "/datasets/..%2Fx/diff", None, None, 400, "INVALID_REQUEST"),
    Hostile("diff: unknown dataset", "GET", "/datasets/nosuch/diff", None, None, 404, "UNKNOWN_DATASET"),
    Hostile("diff: a path below it", "GET", "/datasets/geo/diff/x", None, None, 404, "NOT_FOUND"),
]


def test_the_corpus_is_large() -> None:
    assert len(CORPUS) >= 60
    assert len({case.name for case in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[case.name for case in CORPUS])
def test_hostile_requests_get_a_4xx_with_a_stable_code(warm_lookup_handler: LookupFunction, case: Hostile) -> None:
    response = warm_lookup_handler.handler(hostile_event(case), LambdaContext())
    body = json.loads(as_sent(response))
    assert (response["statusCode"], body["error"]["code"]) == (case.status, case.code), body
    assert body["error"]["code"] in CODES
    assert response["headers"]["Content-Type"] == "application/json"
    assert "Traceback" not in response["body"]
