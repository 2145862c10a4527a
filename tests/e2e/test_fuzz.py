"""Fuzzing the API from its own OpenAPI document, through the local HTTP server, on DynamoDB Local.

Bounded here (FUZZ_EXAMPLES per operation and mode, 40 by default); ``make fuzz`` runs far more. Valid and
invalid requests alike must get responses that conform to the document (status codes, shapes, content types),
and none may be a 5xx. The document's strategies only make valid Unicode, so text that is not (lone surrogates as
JSON escapes, invalid UTF-8 percent-encoded in queries and paths) is sent by a strategy of its own: every body,
whatever was sent, must be strict UTF-8 JSON.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote_from_bytes, urlsplit

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import positive_data_acceptance

from local.config import ROOT, StackConfig
from local.stack import LocalStack

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))


@pytest.fixture(scope="module")
def running() -> Iterator[LocalStack]:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    config = StackConfig.ephemeral(loader_env={"SETTLE_SECONDS": "0"})
    with LocalStack(config) as stack:
        s3 = stack.client("s3")
        for name in ("_settings.json", "asn-sample.tsv"):
            s3.put_object(Bucket=config.bucket, Key=f"default/{name}", Body=(ROOT / "samples" / name).read_bytes())
        # Every address answers (the sample's ranges nested inside), so valid lookups reach the success path.
        everything = "0.0.0.0\t255.255.255.255\t0\tZZ\tIPv4\n::\tffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff\t0\tZZ\tIPv6\n"
        s3.put_object(Bucket=config.bucket, Key="default/everything.tsv", Body=everything.encode())
        stack.wait_for("default", version=1, timeout=120)
        yield stack


OPERATIONS = [
    "GET /",
    "GET /lookup",
    "POST /lookup",
    "GET /datasets",
    "GET /datasets/{name}",
    "GET /datasets/{name}/versions",
    "GET /datasets/{name}/diff",
    "GET /datasets/{name}/values/{column}",
    "GET /datasets/{name}/values/{column}/{value}",
    "GET /datasets/{name}/keys/{key}",
    "GET /datasets/{name}/export",
    "GET /ranges",
    "GET /enrich",
    "GET /enrich/{job}",
]


@pytest.fixture(scope="module")
def api_schema(running: LocalStack) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{running.api_url}/openapi.json")


def test_the_document_lists_the_fuzzed_operations(api_schema: schemathesis.BaseSchema) -> None:
    results = list(api_schema.get_all_operations())
    assert all(isinstance(result, Ok) for result in results), results
    labels = {result.ok().label for result in results if isinstance(result, Ok)}
    assert labels == set(OPERATIONS)


# GET / and GET /datasets take no input: there is nothing to make invalid.
CASES = [
    (label, mode)
    for label in OPERATIONS
    for mode in GenerationMode
    if (label, mode.value) not in {("GET /", "negative"), ("GET /datasets", "negative")}
]


@pytest.mark.parametrize(("label", "mode"), CASES, ids=[f"{label} {mode.value}" for label, mode in CASES])
def test_no_request_breaks_the_api(api_schema: schemathesis.BaseSchema, label: str, mode: GenerationMode) -> None:
    """Valid requests get the documented answers; invalid ones (NEGATIVE) a documented 4xx; never a 5xx."""
    operation = api_schema.find_operation_by_label(label)
    assert operation is not None

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def call(case: schemathesis.Case[Any]) -> None:
        response = case.call_and_validate(excluded_checks=_unstated_rules(case))
        assert response.status_code < 500
        if response.status_code == 304:  # a revalidation (If-None-Match) has no body, by definition
            assert response.content == b""
        else:
            _strict_json(response.content)

    call()


def _unstated_rules(case: schemathesis.Case[Any]) -> list[Any]:
    """Rules no schema states, so a schema-valid request may rightly be refused with 4xx (still documented): a range
    listing's or a diff's cursor carries a checksum, and a listing's network must have no host bits set; a reverse
    lookup's column must be indexed; a key read names a keyed dataset and a key in the form of its keys; an export's
    version is kept (and a profile asked with ``mmdb`` of a version with the columns it needs); the names of a
    lookup's list of datasets are distinct (a pattern cannot say so); a batch names ``dataset`` or ``datasets``, not
    both; ``as_of`` must be an instant a kept version answers (past, after the first version), and ``version`` a
    version once live, in one dataset's lookup, never with ``as_of``; a diff's ``from`` and ``to`` name kept
    versions, and ``to`` comes with ``from``."""
    query, body = case.query or {}, case.body if isinstance(case.body, dict) else {}
    label, names = case.operation.label, str(query.get("dataset", "")).split(",")
    refusable = (
        # where: an indexed column; format: cidr and text only with where
        (label == "GET /ranges" and bool({"cursor", "within", "where", "format"} & set(query)))
        # a diff between versions names two kept ones (NO_VERSION_AT), and to comes with from
        or (label == "GET /datasets/{name}/diff" and bool({"cursor", "from", "to"} & set(query)))
        or label.startswith("GET /datasets/{name}/values/")  # the column must be indexed (NOT_INDEXED)
        # the dataset must be keyed, and the key in its form (an AS number where its keys are AS numbers)
        or label == "GET /datasets/{name}/keys/{key}"
        or (label == "GET /datasets/{name}/export" and "version" in query)  # only kept versions (VERSION_GONE)
        # a profile only with format=mmdb, and of a version with a column for each field it needs
        or (label == "GET /datasets/{name}/export" and "profile" in query)
        or (label == "GET /lookup" and len(set(names)) < len(names))
        or (label == "POST /lookup" and body.get("dataset") is not None and body.get("datasets") is not None)
        or bool({"as_of", "version"} & set(query))  # lookups and listings in the past
        or (label == "POST /lookup" and bool({"as_of", "version"} & set(body)))
    )
    return [positive_data_acceptance] if refusable else []


def _strict_json(body: bytes) -> Any:
    """The body parsed as JSON, after decoding it as strict UTF-8 (no lone surrogates, no invalid bytes)."""
    return json.loads(body.decode("utf-8", errors="strict"))


# Text that is not valid Unicode, and bytes that are not valid UTF-8: what the document's strategies never make.
LONE_SURROGATE = st.integers(0xD800, 0xDFFF).map(chr)
PIECES = st.sampled_from(["1.0.32.5", "::ffff:", "2001:db8::1", "default", "me", '"', "\\", "%", ",", "/", "\ufffd"])
HOSTILE_TEXT = st.lists(st.one_of(st.characters(), LONE_SURROGATE, PIECES), max_size=12).map("".join)
INVALID_UTF8 = st.sampled_from(
    [b"\xff\xfe", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\x80"]
)
RAW_VALUE = st.lists(
    st.one_of(
        INVALID_UTF8, st.binary(max_size=4), HOSTILE_TEXT.map(lambda text: text.encode("utf-8", "surrogatepass"))
    ),
    max_size=4,
).map(b"".join)


@st.composite
def hostile_requests(draw: st.DrawFn, kind: str) -> tuple[str, str, bytes]:
    """``(method, target, body)`` of one request carrying text that is not valid Unicode."""
    if kind == "query":
        query = f"ip={quote_from_bytes(draw(RAW_VALUE), safe='')}"
        if draw(st.booleans()):
            query += f"&dataset={quote_from_bytes(draw(RAW_VALUE), safe='')}"
        return "GET", f"/lookup?{query}", b""
    if kind == "path":
        return "GET", f"/datasets/{quote_from_bytes(draw(RAW_VALUE), safe='')}", b""
    ips = draw(
        st.lists(st.one_of(HOSTILE_TEXT, st.sampled_from(["1.0.32.5", "8.8.8.8", "::1"])), min_size=1, max_size=5)
    )
    dataset = draw(st.one_of(st.just("default"), HOSTILE_TEXT))
    return "POST", "/lookup", json.dumps({"ips": ips, "dataset": dataset}).encode()  # lone surrogates as \udXXX


@pytest.mark.parametrize("kind", ["query", "path", "batch"])
def test_every_answer_is_strict_utf8_json_whatever_text_was_sent(running: LocalStack, kind: str) -> None:
    address = urlsplit(running.api_url)

    @given(request=hostile_requests(kind))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def call(request: tuple[str, str, bytes]) -> None:
        method, target, body = request
        connection = http.client.HTTPConnection(address.hostname or "127.0.0.1", address.port, timeout=30)
        try:
            connection.request(method, target, body=body or None, headers={"content-type": "application/json"})
            response = connection.getresponse()
            content = response.read()
        finally:
            connection.close()
        assert response.status < 500, (target, content[:300])
        document = _strict_json(content)
        assert response.getheader("content-type") == "application/json"
        if response.status >= 400:
            assert document["error"]["code"]
        elif method == "POST":
            assert all("ip" in result for result in document["results"])

    call()


def test_a_browsers_preflight_is_answered_204_through_the_local_front(running: LocalStack) -> None:
    address = urlsplit(running.api_url)
    connection = http.client.HTTPConnection(address.hostname or "127.0.0.1", address.port, timeout=30)
    try:
        headers = {"origin": "https://app.example.com", "access-control-request-method": "POST"}
        connection.request("OPTIONS", "/lookup", headers=headers)
        response = connection.getresponse()
        assert response.read() == b""
    finally:
        connection.close()
    assert response.status == 204
    assert response.getheader("access-control-allow-origin") == "*"
    assert response.getheader("access-control-allow-methods") == "GET, POST, OPTIONS"
