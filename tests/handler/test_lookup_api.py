"""The lookup function end to end through its real entry point, with the sample events, on moto's DynamoDB."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.stub import Stubber

from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.errors import DependencyUnavailable
from tests.support import LambdaContext, event, metric_totals
from tests.support.handlers import ERROR_CASES, call


def test_get_lookup_answers_with_the_range_the_match_and_the_data(lookup_handler: LookupFunction) -> None:
    status, headers, body = call(lookup_handler, "lookup-get")
    assert status == 200
    assert body == {
        "ip": "1.0.32.5",
        "dataset": "geo",
        "version": 3,
        "range": {"start": "1.0.32.0", "end": "1.0.63.255", "cidrs": ["1.0.32.0/19"]},
        "match": {"start": "1.0.32.0", "end": "1.0.63.255", "network": "1.0.32.0/19"},
        "data": {"country": "CN"},
    }
    assert headers["content-type"] == "application/json"
    assert headers["cache-control"] == "public, max-age=120"


def test_a_range_cut_by_a_nested_one_reports_its_original_extent_and_the_piece(lookup_handler: LookupFunction) -> None:
    ev = event("lookup-get")
    ev["queryStringParameters"] = {"ip": "1.0.64.1", "dataset": "geo"}
    response = lookup_handler.handler(ev, LambdaContext())
    body = json.loads(response["body"])
    assert body["range"] == {"start": "1.0.0.0", "end": "1.0.255.255", "cidrs": ["1.0.0.0/16"]}
    assert body["match"] == {"start": "1.0.64.0", "end": "1.0.255.255", "network": "1.0.64.0/18"}
    assert body["data"] == {"country": "AU"}


def test_ipv6_lookup(lookup_handler: LookupFunction) -> None:
    status, _, body = call(lookup_handler, "lookup-get-ipv6")
    assert status == 200
    assert body["ip"] == "2001:db8::1"
    assert body["range"] == {
        "start": "2001:db8::",
        "end": "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
        "cidrs": ["2001:db8::/32"],
    }
    assert body["match"]["network"] == "2001:db8::/32"
    assert body["data"] == {"country": "ZZ"}


def test_mapped_ipv6_is_answered_as_ipv4(lookup_handler: LookupFunction) -> None:
    status, _, body = call(lookup_handler, "lookup-get-mapped")
    assert status == 200
    assert body["ip"] == "1.0.32.5"
    assert body["data"] == {"country": "CN"}


def test_ip_me_looks_up_the_callers_address_privately(lookup_handler: LookupFunction) -> None:
    status, headers, body = call(lookup_handler, "lookup-get-me")
    assert status == 200
    assert body["ip"] == "2001:db8::beef"
    assert headers["cache-control"] == "private, max-age=120"


def test_dataset_defaults_to_default(lookup_handler: LookupFunction) -> None:
    status, _, body = call(lookup_handler, "lookup-get-default-dataset")
    assert status == 200
    assert body["dataset"] == "default"
    assert body["data"] == {"asn": "15169", "country": "US", "description": "GOOGLE - Google LLC"}


@pytest.mark.parametrize(("name", "status", "code"), ERROR_CASES)
def test_errors_have_a_status_and_a_stable_code(
    lookup_handler: LookupFunction, name: str, status: int, code: str
) -> None:
    got_status, headers, body = call(lookup_handler, name)
    assert got_status == status
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    assert headers["cache-control"] == "no-store"


def test_not_found_names_the_address(lookup_handler: LookupFunction) -> None:
    _, _, body = call(lookup_handler, "lookup-get-not-found")
    assert body["ip"] == "9.9.9.9"
    assert (body["dataset"], body["version"]) == ("geo", 3)
    assert "9.9.9.9" in body["error"]["message"]


def test_wrong_method_lists_the_allowed_ones(lookup_handler: LookupFunction) -> None:
    _, headers, _ = call(lookup_handler, "method-not-allowed")
    assert headers["allow"] == "GET, HEAD, POST"  # HEAD: GET without the body


def test_unknown_path_names_the_path(lookup_handler: LookupFunction) -> None:
    _, _, body = call(lookup_handler, "unknown-path")
    assert body["path"] == "/nope"


def test_batch_answers_in_request_order_with_errors_in_place(lookup_handler: LookupFunction) -> None:
    status, _, body = call(lookup_handler, "lookup-post")
    assert status == 200
    results = body["results"]
    assert [r["ip"] for r in results] == ["1.0.32.5", "2001:db8::1", "9.9.9.9", "not-an-ip", "1.0.64.1"]
    assert results[0]["data"] == {"country": "CN"}
    assert results[1]["data"] == {"country": "ZZ"}
    assert results[2]["error"]["code"] == "NOT_FOUND"
    assert results[3]["error"]["code"] == "INVALID_IP"
    assert results[4]["match"] == {"start": "1.0.64.0", "end": "1.0.255.255", "network": "1.0.64.0/18"}
    assert results[4]["range"]["cidrs"] == ["1.0.0.0/16"]
    assert results[1]["match"]["network"] == "2001:db8::/32"
    assert {r.get("version") for r in results if "error" not in r} == {3}


def test_batch_limit_is_exact(lookup_handler: LookupFunction) -> None:
    ev = event("lookup-post-too-large")
    ev["body"] = json.dumps({"ips": ["1.0.32.5"] * 100, "dataset": "geo"})
    response = lookup_handler.handler(ev, LambdaContext())
    assert response["statusCode"] == 200
    assert len(json.loads(response["body"])["results"]) == 100


def test_datasets_are_listed_and_served_in_the_documented_shape(lookup_handler: LookupFunction) -> None:
    status, _, listed = call(lookup_handler, "datasets-list")
    assert status == 200
    assert [d["name"] for d in listed["datasets"]] == ["default", "geo"]
    status, _, geo = call(lookup_handler, "dataset-get")
    assert status == 200
    shape = {"name", "version", "status", "ranges", "loaded_at", "built_at", "data_date", "objects", "load", "source"}
    shape |= {"sinks"}  # docs/sinks.md
    assert set(geo) == shape | {"stale", "age_seconds", "max_age_seconds"}
    assert geo["source"] is None  # its folder names no source
    assert (geo["stale"], geo["age_seconds"], geo["max_age_seconds"]) == (None, None, None)  # nor a max_age
    assert set(geo["load"]) == {"version", "phase", "rows_read", "items_written", "problems", "report", "diff", "items"}
    assert (geo["name"], geo["version"], geo["status"], geo["ranges"]) == ("geo", 3, "READY", 4)


@pytest.mark.parametrize("error_code", ["ProvisionedThroughputExceededException", "InternalServerError"])
def test_dynamodb_failures_answer_503_and_recover(lookup_handler: LookupFunction, error_code: str) -> None:
    assert call(lookup_handler, "lookup-get")[0] == 200  # warm: the live version is cached
    client = lookup_handler.tables.table.client
    with Stubber(client) as stubber:
        stubber.add_client_error("query", service_error_code=error_code, http_status_code=400)
        status, headers, body = call(lookup_handler, "lookup-get")
    assert status == 503
    assert body["error"]["code"] == "UNAVAILABLE"
    assert headers["retry-after"] == "1"
    assert call(lookup_handler, "lookup-get")[0] == 200


THROTTLED = "DynamoDB query failed (ThrottlingException); retry shortly"


@pytest.mark.parametrize(
    ("name", "method"),
    [
        ("lookup-get", "find"),  # the direct path
        ("lookup-post", "find"),  # the resolver, the Queries on the batch's thread pool
        ("datasets-list", "list_datasets"),
        ("dataset-get", "get_dataset"),
    ],
)
def test_an_unavailable_dependency_answers_503_with_its_message(
    lookup_handler: LookupFunction,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    method: str,
) -> None:
    if method == "find":  # (listings are cached briefly: a warm listing would be answered from the cache)
        assert call(lookup_handler, name)[0] == 200  # warm: the live version is cached

    def throttled(*_: Any, **__: Any) -> None:
        raise DependencyUnavailable(THROTTLED)

    with monkeypatch.context() as patch:
        patch.setattr(lookup_handler.tables, method, throttled)
        capsys.readouterr()
        status, headers, body = call(lookup_handler, name)
        assert status == 503
        assert body == {"error": {"code": "UNAVAILABLE", "message": THROTTLED}}
        assert (headers["retry-after"], headers["cache-control"]) == ("1", "no-store")
        assert metric_totals(capsys.readouterr().out) == {"Errors": 1}
        ev, api = event(name), lookup_handler.api
        routed = api.resolver.resolve(ev, LambdaContext())  # type: ignore[arg-type]
        assert api.handle(ev, LambdaContext()) == routed  # direct as routed
    assert call(lookup_handler, name)[0] == 200


def test_metrics_count_lookups_found_not_found_and_errors(
    lookup_handler: LookupFunction, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    call(lookup_handler, "lookup-get")  # found
    call(lookup_handler, "lookup-get-not-found")
    call(lookup_handler, "lookup-get-invalid-ip")  # not a lookup
    call(lookup_handler, "lookup-post")  # 4 addresses looked up (3 found, 1 not), 1 invalid
    with Stubber(lookup_handler.tables.table.client) as stubber:
        stubber.add_client_error("query", service_error_code="InternalServerError", http_status_code=500)
        assert call(lookup_handler, "lookup-get")[0] == 503
    metrics = metric_totals(capsys.readouterr().out)
    assert (metrics["Lookups"], metrics["Found"], metrics["NotFound"]) == (6, 4, 2)
    assert metrics["Errors"] == 1


GET_LOOKUP_EVENTS = [
    "lookup-get",
    "lookup-get-ipv6",
    "lookup-get-mapped",
    "lookup-get-me",
    "lookup-get-default-dataset",
    "lookup-get-not-found",
    "lookup-get-invalid-ip",
    "lookup-get-missing-ip",
    "lookup-get-unknown-dataset",
    "lookup-get-invalid-dataset",
    "lookup-get-several",
    "lookup-get-overlay",
    "lookup-get-fields",
    "lookup-get-conditional",
]


@pytest.mark.parametrize("name", GET_LOOKUP_EVENTS)
def test_the_direct_path_answers_exactly_as_the_resolver(lookup_handler: LookupFunction, name: str) -> None:
    ev = event(name)
    direct = lookup_handler.api.handle(ev, LambdaContext())
    routed = lookup_handler.api.resolver.resolve(ev, LambdaContext())  # type: ignore[arg-type]
    assert direct == routed


def test_the_direct_path_maps_unexpected_failures_like_the_resolver(
    lookup_handler: LookupFunction, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(lookup_handler.tables, "find", broken)
    direct = lookup_handler.api.handle(event("lookup-get"), LambdaContext())
    routed = lookup_handler.api.resolver.resolve(event("lookup-get"), LambdaContext())  # type: ignore[arg-type]
    assert direct == routed
    assert direct["statusCode"] == 500
    assert json.loads(direct["body"])["error"]["code"] == "INTERNAL"
    assert "a bug" not in direct["body"]


def test_the_sample_events_of_several_datasets_fields_and_conditional_requests(lookup_handler: LookupFunction) -> None:
    status, _, several = call(lookup_handler, "lookup-get-several")
    assert status == 200
    assert [answer["dataset"] for answer in several["answers"]] == ["geo", "default"]
    assert several["answers"][0]["data"] == {"country": "CN"}
    status, _, overlay = call(lookup_handler, "lookup-get-overlay")
    assert status == 200
    assert overlay["dataset"] in ("default", "geo")
    status, _, selected = call(lookup_handler, "lookup-get-fields")
    assert (status, selected) == (
        200,
        {"ip": "1.0.32.5", "version": 3, "match": {"network": "1.0.32.0/19"}, "data": {"country": "CN"}},
    )
    response = lookup_handler.handler(event("lookup-get-conditional"), LambdaContext())
    assert (response["statusCode"], response["body"]) == (304, "")
    assert response["headers"]["ETag"] == event("lookup-get-conditional")["headers"]["if-none-match"]
    status, _, batch = call(lookup_handler, "lookup-post-datasets")
    assert status == 200
    assert [len(result["answers"]) for result in batch["results"]] == [2, 2, 2]
    assert all(
        set(answer) <= {"ip", "data", "match", "gap", "error"} for r in batch["results"] for answer in r["answers"]
    )
