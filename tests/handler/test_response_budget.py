"""Answers always fit Lambda's response limit: a batch whose answers would not is still a 200, complete up to the
response budget and RESPONSE_TOO_LARGE from there; a single answer over the budget is a clear error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.http.budget import DEFAULT_BUDGET_BYTES, cost
from tests.support import LambdaContext, event, family_ranges, publish

LAMBDA_LIMIT = 6 * 1024 * 1024 + 100  # Lambda's "maximum allowed payload size (6291556 bytes)"
WIDE = 63_000  # bytes of metadata per row: 100 such answers are 6.3 MB


def _publish_wide(module: LookupFunction, dataset: str, value: str) -> list[str]:
    """100 /24 ranges, each with ``value`` as its metadata; returns an address in each."""
    rows = [(f"10.0.{i}.0", f"10.0.{i}.255", value) for i in range(100)]
    publish(module.tables, dataset, 1, family_ranges(rows), ["blob"])
    return [f"10.0.{i}.1" for i in range(100)]


def _post(module: LookupFunction, ips: list[str], dataset: str) -> tuple[dict[str, Any], int]:
    ev = event("lookup-post")
    ev["body"] = json.dumps({"ips": ips, "dataset": dataset})
    response = module.handler(ev, LambdaContext())
    payload = len(json.dumps(response, ensure_ascii=False).encode("utf-8"))  # as the runtime sends it
    return response, payload


def test_a_batch_of_100_answers_of_63_kb_stays_under_the_budget(lookup_handler: LookupFunction) -> None:
    # Given 100 ranges whose rows carry 63 KB of metadata each (6.3 MB of answers together)
    ips = _publish_wide(lookup_handler, "wide", "x" * WIDE)
    # When a batch asks for all of them
    response, payload = _post(lookup_handler, ips, "wide")
    # Then the batch is answered (200), within the budget and far within Lambda's limit
    assert response["statusCode"] == 200
    assert cost(response["body"]) <= DEFAULT_BUDGET_BYTES
    assert payload < LAMBDA_LIMIT
    # And the earlier elements are complete, in order, and every later one is RESPONSE_TOO_LARGE with its address
    results = json.loads(response["body"])["results"]
    assert [result["ip"] for result in results] == ips
    complete = [result for result in results if "error" not in result]
    assert 65 <= len(complete) <= DEFAULT_BUDGET_BYTES // WIDE  # as many as fit: 71 of 63 KB in 4.5 MB
    assert all(result["data"] == {"blob": "x" * WIDE} for result in complete)
    assert results[: len(complete)] == complete
    refused = results[len(complete) :]
    assert {result["error"]["code"] for result in refused} == {"RESPONSE_TOO_LARGE"}
    assert "send this address again" in refused[0]["error"]["message"]


def test_a_batch_that_fits_is_answered_exactly_as_before(lookup_handler: LookupFunction) -> None:
    ips = _publish_wide(lookup_handler, "narrow", "AU")
    response, _ = _post(lookup_handler, ips, "narrow")
    results = json.loads(response["body"])["results"]
    assert response["body"] == json.dumps({"results": results}, ensure_ascii=False, separators=(",", ":"))
    assert all("error" not in result for result in results)


def test_escaping_counts_toward_the_budget(lookup_handler: LookupFunction) -> None:
    # Given rows of 40,000 double quotes: 80 KB in the body, 160 KB once the body is a JSON string in the payload
    ips = _publish_wide(lookup_handler, "quotes", '"' * 40_000)
    response, payload = _post(lookup_handler, ips, "quotes")
    results = json.loads(response["body"])["results"]
    complete = [result for result in results if "error" not in result]
    assert 0 < len(complete) < 100
    assert cost(response["body"]) <= DEFAULT_BUDGET_BYTES
    assert payload < LAMBDA_LIMIT


@pytest.fixture
def small_budget_handler(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> LookupFunction:
    monkeypatch.setenv("RESPONSE_BUDGET_BYTES", "1000000")
    handler: LookupFunction = request.getfixturevalue("lookup_handler")
    return handler


def test_a_single_answer_over_the_budget_is_refused_with_its_code(small_budget_handler: LookupFunction) -> None:
    # Given a budget of 1 MB, and a range whose 300,000 quotes take 1.2 MB once escaped twice
    publish(small_budget_handler.tables, "quotes", 1, family_ranges([("10.0.0.0", "10.0.0.255", '"' * 300_000)]), ["q"])
    ev = event("lookup-get")
    ev["queryStringParameters"] = {"ip": "10.0.0.1", "dataset": "quotes"}
    # When it is looked up
    response = small_budget_handler.handler(ev, LambdaContext())
    # Then the answer is a clear error, and small
    body = json.loads(response["body"])
    assert (response["statusCode"], body["error"]["code"]) == (500, "RESPONSE_TOO_LARGE")
    assert "1000000 bytes" in body["error"]["message"]
    assert response["headers"]["Cache-Control"] == "no-store"
    # And the direct path answers as the resolver does
    api = small_budget_handler.api
    assert api.handle(ev, LambdaContext()) == api.resolver.resolve(ev, LambdaContext())  # type: ignore[arg-type]
    # And in a batch the same address is refused in place, the others answered
    response, _ = _post(small_budget_handler, ["1.0.32.5", "10.0.0.1"], "quotes")
    results = json.loads(response["body"])["results"]
    assert response["statusCode"] == 200
    assert [result["error"]["code"] for result in results] == ["NOT_FOUND", "RESPONSE_TOO_LARGE"]
