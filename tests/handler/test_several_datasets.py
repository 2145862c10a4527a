"""Several datasets in one lookup, through the real entry point on moto's DynamoDB: every answer in request order
with the stretch where all of them hold, overlays (``mode=first``), the POST form, the limits, and the errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from tests.support import LambdaContext, event, family_ranges
from tests.support.handlers import GEO_ROWS, lookup_on_moto

ASN_ROWS = [("1.0.0.0", "1.0.127.255", "AS1"), ("8.8.0.0", "8.8.255.255", "AS15169")]
IPAM_ROWS = [("1.0.40.0", "1.0.40.255", "lab"), ("10.1.0.0", "10.1.255.255", "office")]


@pytest.fixture
def handler(monkeypatch: pytest.MonkeyPatch) -> Iterator[LookupFunction]:
    datasets = [
        ("geo", 3, family_ranges(GEO_ROWS), ["country"]),
        ("asn", 7, family_ranges(ASN_ROWS), ["asn"]),
        ("ipam", 2, family_ranges(IPAM_ROWS), ["site"]),
    ]
    with lookup_on_moto(monkeypatch, datasets, MAX_BATCH="200") as module:
        yield module


def get(handler: LookupFunction, **query: str) -> tuple[int, Any, dict[str, str]]:
    response = handler.handler(event("lookup-get", queryStringParameters=query), LambdaContext())
    return response["statusCode"], json.loads(response["body"] or "null"), response["headers"]


def post(handler: LookupFunction, body: dict[str, Any]) -> tuple[int, Any]:
    response = handler.handler(event("lookup-post", body=json.dumps(body)), LambdaContext())
    return response["statusCode"], json.loads(response["body"])


def span(start: str, end: str, network: str) -> dict[str, str]:
    return {"start": start, "end": end, "network": network}


def test_every_dataset_answers_in_request_order_with_the_stretch_where_all_hold(handler: LookupFunction) -> None:
    status, body, headers = get(handler, ip="1.0.100.1", dataset="geo,asn,ipam")
    assert status == 200
    assert list(body) == ["ip", "match", "answers"]
    assert body["ip"] == "1.0.100.1"
    # geo: the AU piece after the nested CN range; asn: its first range; ipam: the gap between its two ranges
    geo, asn, ipam = body["answers"]
    assert (geo["dataset"], geo["version"], geo["data"]) == ("geo", 3, {"country": "AU"})
    assert geo["match"] == span("1.0.64.0", "1.0.255.255", "1.0.64.0/18")
    assert (asn["dataset"], asn["version"], asn["data"]) == ("asn", 7, {"asn": "AS1"})
    assert ipam["error"]["code"] == "NOT_FOUND"
    assert (ipam["dataset"], ipam["version"]) == ("ipam", 2)
    assert ipam["gap"] == span("1.0.41.0", "10.0.255.255", "1.0.64.0/18")
    # The whole answer holds from 1.0.64.0 (geo's piece) to 1.0.127.255 (asn's range)
    assert body["match"] == span("1.0.64.0", "1.0.127.255", "1.0.64.0/18")
    assert "ETag" in headers


def test_reserved_is_top_level_and_elements_keep_the_single_dataset_shape(handler: LookupFunction) -> None:
    _, body, _ = get(handler, ip="10.1.2.3", dataset="ipam,geo")
    assert body["reserved"] == {"name": "Private-Use", "network": "10.0.0.0/8", "rfc": "RFC 1918"}
    ipam, geo = body["answers"]
    _, single, _ = get(handler, ip="10.1.2.3", dataset="ipam")
    assert ipam == {key: value for key, value in single.items() if key != "reserved"}
    assert geo["gap"] == span("8.8.9.0", "255.255.255.255", "10.0.0.0/7")
    assert body["match"] == span("10.1.0.0", "10.1.255.255", "10.1.0.0/16")


def test_an_unknown_dataset_in_the_list_is_an_element_and_the_others_answer(handler: LookupFunction) -> None:
    status, body, _ = get(handler, ip="1.0.40.7", dataset="nope,ipam")
    assert status == 200
    nope, ipam = body["answers"]
    assert nope == {"ip": "1.0.40.7", "dataset": "nope", "error": nope["error"]}
    assert nope["error"]["code"] == "UNKNOWN_DATASET"
    assert ipam["data"] == {"site": "lab"}
    assert body["match"] == span("1.0.40.0", "1.0.40.255", "1.0.40.0/24")
    _, only_unknown, _ = get(handler, ip="1.0.40.7", dataset="nope,other")
    assert "match" not in only_unknown
    assert [element["error"]["code"] for element in only_unknown["answers"]] == ["UNKNOWN_DATASET"] * 2


def test_mode_first_answers_from_the_first_dataset_with_a_range_narrowed_by_the_gaps_before_it(
    handler: LookupFunction,
) -> None:
    status, body, _ = get(handler, ip="1.0.41.7", dataset="ipam,asn", mode="first")
    assert status == 200
    assert (body["dataset"], body["version"], body["data"]) == ("asn", 7, {"asn": "AS1"})
    assert body["range"]["start"] == "1.0.0.0"
    assert body["range"]["end"] == "1.0.127.255"
    # ipam has nothing from 1.0.41.0 on: below that, ipam's lab range would answer instead
    assert body["match"] == span("1.0.41.0", "1.0.127.255", "1.0.41.0/24")
    _, inside, _ = get(handler, ip="1.0.40.7", dataset="ipam,asn", mode="first")
    assert (inside["dataset"], inside["data"]) == ("ipam", {"site": "lab"})
    assert inside["match"] == span("1.0.40.0", "1.0.40.255", "1.0.40.0/24")


def test_mode_first_with_no_answer_is_not_found_with_the_common_gap_and_every_version(handler: LookupFunction) -> None:
    status, body, headers = get(handler, ip="9.9.9.9", dataset="ipam,asn", mode="first")
    assert status == 404
    assert body["error"]["code"] == "NOT_FOUND"
    assert body["gap"] == span("8.9.0.0", "10.0.255.255", "9.0.0.0/8")
    assert body["versions"] == [{"dataset": "ipam", "version": 2}, {"dataset": "asn", "version": 7}]
    assert "ETag" in headers


def test_mode_first_with_an_unknown_dataset_fails_the_whole_request(handler: LookupFunction) -> None:
    status, body, _ = get(handler, ip="1.0.40.7", dataset="ipam,nope", mode="first")
    assert status == 404
    assert body["error"]["code"] == "UNKNOWN_DATASET"


@pytest.mark.parametrize(
    ("dataset", "mode"),
    [
        ("geo,geo", None),  # a name twice, as a repeated dataset= parameter arrives
        ("geo,asn,geo", None),
        ("a,b,c,d,e,f", None),  # six
        ("geo,", None),
        (",geo", None),
        ("geo,,asn", None),
        ("geo,../x", None),
        ("geo,asn", "last"),
        ("geo", "FIRST"),
    ],
)
def test_bad_lists_and_modes_are_invalid_requests(handler: LookupFunction, dataset: str, mode: str | None) -> None:
    query = {"ip": "1.0.40.7", "dataset": dataset, **({"mode": mode} if mode else {})}
    status, body, _ = get(handler, **query)
    assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST")


def test_fields_apply_to_each_answer_and_to_the_top_level_match(handler: LookupFunction) -> None:
    _, body, _ = get(handler, ip="1.0.100.1", dataset="geo,ipam", fields="data.country,gap.network")
    assert body == {
        "ip": "1.0.100.1",
        "answers": [
            {"ip": "1.0.100.1", "data": {"country": "AU"}},
            {"ip": "1.0.100.1", "gap": {"network": "1.0.64.0/18"}, "error": body["answers"][1]["error"]},
        ],
    }
    _, with_match, _ = get(handler, ip="1.0.100.1", dataset="geo,ipam", fields="match.network")
    assert with_match["match"] == {"network": "1.0.64.0/18"}


def test_a_batch_with_datasets_answers_each_address_from_every_dataset(handler: LookupFunction) -> None:
    status, body = post(handler, {"ips": ["1.0.100.1", "nonsense", "10.1.2.3"], "datasets": ["geo", "asn", "ipam"]})
    assert status == 200
    first, invalid, last = body["results"]
    _, single, _ = get(handler, ip="1.0.100.1", dataset="geo,asn,ipam")
    assert first == single
    assert invalid["error"]["code"] == "INVALID_IP"
    assert [answer.get("data") for answer in last["answers"]] == [None, None, {"site": "office"}]
    # A list of one still selects the several-dataset shape
    _, one = post(handler, {"ips": ["1.0.100.1"], "datasets": ["geo"]})
    assert list(one["results"][0]) == ["ip", "match", "answers"]


def test_a_batch_overlay_names_the_winner_and_gives_not_found_elements_their_gap(handler: LookupFunction) -> None:
    _, body = post(handler, {"ips": ["1.0.41.7", "9.9.9.9"], "datasets": ["ipam", "asn"], "mode": "first"})
    found, missing = body["results"]
    assert (found["dataset"], found["match"]["start"]) == ("asn", "1.0.41.0")
    assert missing["ip"] == "9.9.9.9"
    assert missing["error"]["code"] == "NOT_FOUND"
    assert missing["gap"] == span("8.9.0.0", "10.0.255.255", "9.0.0.0/8")
    status, refused = post(handler, {"ips": ["1.0.41.7"], "datasets": ["ipam", "nope"], "mode": "first"})
    assert (status, refused["error"]["code"]) == (404, "UNKNOWN_DATASET")


def test_a_single_dataset_batch_not_found_names_its_dataset_version_and_gap(handler: LookupFunction) -> None:
    _, body = post(handler, {"ips": ["9.9.9.9"], "dataset": "ipam"})
    (missing,) = body["results"]
    assert missing == {
        "ip": "9.9.9.9",
        "dataset": "ipam",
        "version": 2,
        "gap": span("1.0.41.0", "10.0.255.255", "8.0.0.0/7"),
        "error": missing["error"],
    }
    status, single, _ = get(handler, ip="9.9.9.9", dataset="ipam")
    assert status == 404
    assert single["gap"] == missing["gap"]
    assert list(single) == ["ip", "dataset", "version", "gap", "error"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"ips": ["1.0.0.1"] * 200, "datasets": ["geo", "asn", "ipam"]}, "BATCH_TOO_LARGE"),  # 600 lookups
        ({"ips": ["1.0.0.1"], "dataset": "geo", "datasets": ["asn"]}, "INVALID_REQUEST"),
        ({"ips": ["1.0.0.1"], "datasets": []}, "INVALID_REQUEST"),
        ({"ips": ["1.0.0.1"], "datasets": "geo"}, "INVALID_REQUEST"),
        ({"ips": ["1.0.0.1"], "datasets": ["geo", "geo"]}, "INVALID_REQUEST"),
        ({"ips": ["1.0.0.1"], "datasets": ["geo", 5]}, "INVALID_REQUEST"),
        ({"ips": ["1.0.0.1"], "datasets": ["a", "b", "c", "d", "e", "f"]}, "INVALID_REQUEST"),
        ({"ips": ["1.0.0.1"], "datasets": ["geo"], "mode": "any"}, "INVALID_REQUEST"),
    ],
)
def test_bad_batch_lists_are_refused(handler: LookupFunction, body: dict[str, Any], code: str) -> None:
    status, answer = post(handler, body)
    assert (status, answer["error"]["code"]) == (400, code)


def test_five_hundred_lookups_in_one_batch_are_allowed(handler: LookupFunction) -> None:
    ips = [f"1.0.{i // 256}.{i % 256}" for i in range(166)]
    status, body = post(handler, {"ips": ips, "datasets": ["geo", "asn", "ipam"]})  # 498 lookups
    assert status == 200
    assert len(body["results"]) == 166
