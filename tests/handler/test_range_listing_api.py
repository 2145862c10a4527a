"""``GET /ranges`` through the lookup handler (moto): pieces in address order, paging, and the refusals."""

from __future__ import annotations

from typing import Any

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.core.space.addresses import V4
from fencepost.http.paging import Cursor
from tests.support.handlers import call

GEO_PIECES = [
    {"start": "1.0.0.0", "end": "1.0.31.255", "data": {"country": "AU"}},
    {"start": "1.0.32.0", "end": "1.0.63.255", "data": {"country": "CN"}},
    {"start": "1.0.64.0", "end": "1.0.255.255", "data": {"country": "AU"}},
    {"start": "8.8.8.0", "end": "8.8.8.255", "data": {"country": "US"}},
    {"start": "2001:db8::", "end": "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "data": {"country": "ZZ"}},
]


def _get(module: LookupFunction, **query: str) -> tuple[int, dict[str, str], Any]:
    return call(module, "ranges-get", queryStringParameters=query)


def test_the_sample_event_lists_the_first_page_of_a_network(lookup_handler: LookupFunction) -> None:
    status, headers, body = call(lookup_handler, "ranges-get")
    assert status == 200
    assert headers["cache-control"] == "no-store"
    assert (body["dataset"], body["version"], body["within"]) == ("geo", 3, "1.0.0.0/16")
    assert body["ranges"] == GEO_PIECES[:2]
    assert isinstance(body["next"], str)


def test_pages_list_every_piece_of_both_families_in_order(lookup_handler: LookupFunction) -> None:
    listed, cursor = [], None
    while True:
        status, _, body = _get(lookup_handler, dataset="geo", limit="2", **({"cursor": cursor} if cursor else {}))
        assert status == 200
        listed += body["ranges"]
        cursor = body["next"]
        if cursor is None:
            break
    assert listed == GEO_PIECES
    assert _get(lookup_handler, dataset="geo")[2] == {
        "dataset": "geo",
        "version": 3,
        "within": None,
        "ranges": GEO_PIECES,
        "next": None,
    }


def test_pieces_that_straddle_within_are_whole(lookup_handler: LookupFunction) -> None:
    _, _, body = _get(lookup_handler, dataset="geo", within="1.0.40.0/24")
    assert body["ranges"] == [GEO_PIECES[1]]
    _, _, body = _get(lookup_handler, dataset="geo", within="::ffff:8.8.0.0/112")
    assert (body["within"], body["ranges"]) == ("8.8.0.0/16", [GEO_PIECES[3]])


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ({"within": "1.0.0.1/16"}, "host bits"),
        ({"within": "1.0.0.0"}, "CIDR"),
        ({"within": "01.0.0.0/8"}, "leading zeros"),
        ({"limit": "1001"}, "limit"),
        ({"limit": "0"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"cursor": Cursor("default", 1, V4, None).token()}, "dataset 'default'"),
        ({"cursor": Cursor("geo", 3, V4, None).token()[:-2] + "00"}, "cursor"),
    ],
)
def test_bad_within_limit_or_cursor_is_invalid_request(
    lookup_handler: LookupFunction, query: dict[str, str], reason: str
) -> None:
    status, headers, body = _get(lookup_handler, dataset="geo", **query)
    assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST")
    assert reason in body["error"]["message"]
    assert headers["cache-control"] == "no-store"


def test_the_sample_bad_within_event_is_refused(lookup_handler: LookupFunction) -> None:
    status, _, body = call(lookup_handler, "ranges-get-invalid-within")
    assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST")


def test_a_cursor_of_a_version_no_longer_listed_has_expired(lookup_handler: LookupFunction) -> None:
    status, _, body = _get(lookup_handler, dataset="geo", cursor=Cursor("geo", 1, V4, None).token())
    assert (status, body["error"]["code"]) == (410, "CURSOR_EXPIRED")


def test_an_unknown_dataset_is_404(lookup_handler: LookupFunction) -> None:
    status, _, body = _get(lookup_handler, dataset="nosuch")
    assert (status, body["error"]["code"]) == (404, "UNKNOWN_DATASET")
