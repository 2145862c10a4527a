"""The validators of a GET lookup: a weak entity tag from the datasets' live versions (and the address for
``ip=me``), Last-Modified as an HTTP-date, and If-None-Match read as RFC 9110 says (lists, weak tags, ``*``)."""

from __future__ import annotations

import re

import pytest

from fencepost.http.conditional import Validators, entity_tag, header, http_date, none_match, parse_if_none_match

TAG = entity_tag([("geo", 3)])


def test_the_tag_is_weak_short_and_the_same_for_the_same_versions() -> None:
    assert re.fullmatch(r'W/"[0-9a-f]{20}"', TAG)
    assert entity_tag([("geo", 3)]) == TAG  # a pure function of its arguments: the same in every container


def test_the_tag_changes_with_any_dataset_version_or_the_address() -> None:
    tags = {
        TAG,
        entity_tag([("geo", 4)]),
        entity_tag([("geo2", 3)]),
        entity_tag([("geo", 3), ("asn", 1)]),
        entity_tag([("geo", 3), ("asn", 2)]),
        entity_tag([("asn", 1), ("geo", 3)]),  # the order is the request's, and can change the answer
        entity_tag([("geo", 3)], "192.0.2.1"),
        entity_tag([("geo", 3)], "192.0.2.2"),
    }
    assert len(tags) == 8


def test_names_and_versions_cannot_run_into_each_other() -> None:
    assert entity_tag([("geo", 31)]) != entity_tag([("geo3", 1)])
    assert entity_tag([("a", 1), ("b", 2)]) != entity_tag([("a", 12)])


def test_http_date_is_an_imf_fixdate_in_gmt() -> None:
    assert http_date(0) == "Thu, 01 Jan 1970 00:00:00 GMT"
    assert http_date(1795255200.9) == "Sat, 21 Nov 2026 10:00:00 GMT"


def test_last_modified_is_the_newest_live_since_and_absent_when_none_is_known() -> None:
    both = Validators.of([("geo", 3, 1795255200.0), ("asn", 1, 1795255300.0), ("x", 1, None)])
    assert both.last_modified == "Sat, 21 Nov 2026 10:01:40 GMT"
    assert both.etag == entity_tag([("geo", 3), ("asn", 1), ("x", 1)])
    assert both.headers() == {"ETag": both.etag, "Last-Modified": both.last_modified}
    unknown = Validators.of([("geo", 3, None)])
    assert unknown.last_modified is None
    assert unknown.headers() == {"ETag": TAG}


@pytest.mark.parametrize(
    ("value", "tags"),
    [
        ('"abc"', ('"abc"',)),
        ('W/"abc"', ('W/"abc"',)),
        ('"a", W/"b",  "c"', ('"a"', 'W/"b"', '"c"')),
        ('"a","b"', ('"a"', '"b"')),  # two header lines, joined by the front end
        ('"a,b", "c"', ('"a,b"', '"c"')),  # a comma inside a tag is part of it
        ('""', ('""',)),
        ("*", ("*",)),
        (" * ", ("*",)),
        (", ,", None),
        ("", None),
        (None, None),
        ("abc", None),  # not quoted: not an entity tag, the field is ignored
        ('"a", *', None),
        ('"unterminated', None),
        ('w/"lowercase"', None),
    ],
)
def test_if_none_match_is_parsed_into_its_tags(value: str | None, tags: tuple[str, ...] | None) -> None:
    assert parse_if_none_match(value) == tags


def test_if_none_match_compares_weakly() -> None:
    opaque = TAG.removeprefix("W/")
    assert none_match(TAG, TAG)
    assert none_match(opaque, TAG)  # a strong tag in the request matches the weak current one
    assert none_match(f'"other", {TAG}', TAG)
    assert none_match(f'W/"other",{opaque}', TAG)
    assert none_match("*", TAG)
    assert not none_match('W/"other"', TAG)
    assert not none_match(None, TAG)
    assert not none_match("garbage", TAG)
    assert not none_match(TAG.upper(), TAG)  # tags are case-sensitive


def test_request_headers_are_found_whatever_their_case() -> None:
    assert header({"if-none-match": "*"}, "if-none-match") == "*"
    assert header({"If-None-Match": "*"}, "if-none-match") == "*"
    assert header({}, "if-none-match") is None
    assert header(None, "if-none-match") is None
