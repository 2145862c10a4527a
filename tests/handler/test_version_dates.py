"""A version's dates in lookups: ``built_at`` and ``data_date`` only when ``fields`` names them (GET and POST, one
dataset or several, live or in the past), and a default answer byte for byte what it was without them."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from fencepost.aws.dynamo.codec import encode
from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.core.storage.keys import VERSION_HEADER_SK, version_pk
from fencepost.core.versions.data_dates import DataDate
from fencepost.model import VersionHeader
from tests.support import LambdaContext, event, family_ranges, publish
from tests.support.handlers import GEO_ROWS

BUILT = "2026-11-21T00:00:00+00:00"  # the seeded versions' header (tests.support.publish); their data states no date


def get(module: LookupFunction, **query: str) -> tuple[int, str]:
    ev = event("lookup-get")
    ev["queryStringParameters"] = query
    ev["rawQueryString"] = "&".join(f"{key}={value}" for key, value in query.items())
    response = module.handler(ev, LambdaContext())
    return response["statusCode"], response["body"]


def post(module: LookupFunction, body: dict[str, Any]) -> list[dict[str, Any]]:
    ev = event("lookup-post")
    ev["body"] = json.dumps(body)
    response = module.handler(ev, LambdaContext())
    assert response["statusCode"] == 200, response["body"]
    results: list[dict[str, Any]] = json.loads(response["body"])["results"]
    return results


def test_the_dates_are_answered_only_when_fields_names_them(lookup_handler: LookupFunction) -> None:
    status, body = get(lookup_handler, ip="1.0.32.5", dataset="geo", fields="version,built_at,data_date")
    assert (status, json.loads(body)) == (200, {"ip": "1.0.32.5", "version": 3, "built_at": BUILT, "data_date": None})
    status, body = get(lookup_handler, ip="1.0.32.5", dataset="geo", fields="built_at")
    assert json.loads(body) == {"ip": "1.0.32.5", "built_at": BUILT}


def test_the_default_answer_is_byte_for_byte_the_answer_without_the_dates(lookup_handler: LookupFunction) -> None:
    for ip in ("1.0.32.5", "10.1.2.3"):
        _, whole = get(lookup_handler, ip=ip, dataset="geo")
        _, every = get(
            lookup_handler, ip=ip, dataset="geo", fields="ip,dataset,version,range,match,data,reserved,gap,error"
        )
        assert whole == every
        assert "built_at" not in whole
        assert "data_date" not in whole
    _, several = get(lookup_handler, ip="1.0.32.5", dataset="geo,default")
    assert "built_at" not in several
    assert "data_date" not in several


def test_a_not_found_and_each_of_several_datasets_carry_the_dates_of_their_own_version(
    lookup_handler: LookupFunction,
) -> None:
    status, body = get(lookup_handler, ip="10.1.2.3", dataset="geo", fields="built_at")
    assert (status, json.loads(body)["built_at"]) == (404, BUILT)
    status, body = get(lookup_handler, ip="1.0.32.5", dataset="geo,default", fields="dataset,version,built_at")
    answers = json.loads(body)["answers"]
    assert [(a["dataset"], a["version"], a["built_at"]) for a in answers] == [("geo", 3, BUILT), ("default", 1, BUILT)]


def test_a_batch_answers_the_dates_it_asks_for(lookup_handler: LookupFunction) -> None:
    results = post(lookup_handler, {"ips": ["1.0.32.5", "nope"], "dataset": "geo", "fields": ["data_date", "built_at"]})
    assert results[0] == {"ip": "1.0.32.5", "built_at": BUILT, "data_date": None}
    assert set(results[1]) == {"ip", "error"}
    plain = post(lookup_handler, {"ips": ["1.0.32.5"], "dataset": "geo"})
    assert "built_at" not in plain[0]
    assert "data_date" not in plain[0]


def test_a_lookup_in_the_past_answers_the_dates_of_the_version_that_answered(lookup_handler: LookupFunction) -> None:
    # Given version 4 of geo, built a day after version 3 from data its publisher dates, live from 00:03:00Z
    tables = lookup_handler.tables
    publish(tables, "geo", 4, family_ranges(GEO_ROWS), ["country"])
    stated = DataDate("2026-11-20T06:00:00Z", "last-modified", "geo/_fetched/geo.tsv")
    header = VersionHeader(("country",), 4, 4, [], "2026-11-22T00:00:00+00:00", gaps=True, data_date=stated)
    tables.table.put(encode(header, PK=version_pk("geo", 4), SK=VERSION_HEADER_SK))
    asked = "version,built_at,data_date"
    # Then the live answer carries version 4's dates, and answers in the past those of the version that answered
    live = json.loads(get(lookup_handler, ip="1.0.32.5", dataset="geo", fields=asked)[1])
    assert (live["version"], live["built_at"], live["data_date"]) == (4, header.created_at, dataclasses.asdict(stated))
    for past in ({"as_of": "2026-11-21T00:02:30Z"}, {"version": "3"}):
        then = json.loads(get(lookup_handler, ip="1.0.32.5", dataset="geo", fields=asked, **past)[1])
        assert (then["version"], then["built_at"], then["data_date"]) == (3, BUILT, None)
