"""A cloud's JSON document dates its own data (``core.formats.json_documents``, ``core.versions.data_dates``): AWS's
``createDate`` an instant in UTC, Google's ``creationTime`` and Oracle's ``last_updated_timestamp`` (written without
an offset) the day they name, Fastly's list nothing; a document's date comes after an RIR version line and before a
release's Last-Modified, and one after the build's next day is no date of the data."""

from __future__ import annotations

import pytest

from fencepost.core.versions.data_dates import DataDate, from_document, latest_day, object_date, version_date
from tests.support.formats import read_sample
from tests.support.published import AWS, FASTLY, GOOG, GOOGLE, ORACLE

HEADER = "Tue, 24 Nov 2026 10:31:02 GMT"


@pytest.mark.parametrize(
    ("text", "published", "dated"),
    [
        (AWS, "2026-11-28T03:13:04Z", "2026-11-28T03:13:04Z"),  # createDate "2026-11-28-03-13-04", UTC
        (GOOGLE, "2026-11-28T06:00:00.000000", "2026-11-28"),
        (GOOG, "2026-11-28T06:00:00.000000", "2026-11-28"),
        (ORACLE, "2026-11-28T19:55:47.204985", "2026-11-28"),
        (FASTLY, None, None),
    ],
    ids=["aws", "google-cloud", "goog", "oracle", "fastly"],
)
def test_each_publishers_document_states_its_own_date(text: str, published: str | None, dated: str | None) -> None:
    summary, _, _ = read_sample(text)
    assert summary.published == published
    assert from_document(summary.published) == dated


@pytest.mark.parametrize(
    "stamp",
    ['"2026-11-28 03:13:04"', '"2026-13-28-03-13-04"', "20261128", '""', "null"],
    ids=["not-its-form", "no-such-month", "a-number", "empty", "null"],
)
def test_an_aws_create_date_not_of_its_documented_form_states_no_date(stamp: str) -> None:
    summary, _, _ = read_sample(AWS.replace('"2026-11-28-03-13-04"', stamp))
    assert summary.rows == 3  # the ranges are read all the same
    assert from_document(summary.published) is None


@pytest.mark.parametrize(
    ("text", "dated"),
    [
        ("2026-11-28T06:00:00+09:00", "2026-11-27T21:00:00Z"),  # an offset named: an instant, in UTC
        ("2026-11-28T06:00:00Z", "2026-11-28T06:00:00Z"),
        ("2026-11-28T23:59:59.999999", "2026-11-28"),  # none named: the day
        ("2026-11-28", "2026-11-28"),
        ("1970-01-01T00:00:00Z", None),  # before any public IP data set
        ("yesterday", None),
        ("2026-02-30T00:00:00", None),
        ("", None),
        (None, None),
        (1764300000, None),
    ],
)
def test_a_documents_timestamp_is_an_instant_with_an_offset_and_a_day_without(text: object, dated: str | None) -> None:
    assert from_document(text) == dated


def test_a_document_comes_after_the_rir_line_and_before_the_header_and_the_name() -> None:
    key = "aws/ip-ranges-20261120.json"
    assert object_date(key, enddate="20261123", published="2026-11-28T03:13:04Z") == DataDate("2026-11-23", "rir", key)
    assert object_date(key, published="2026-11-28T03:13:04Z", last_modified=HEADER) == DataDate(
        "2026-11-28T03:13:04Z", "document", key
    )
    assert object_date(key, published="garbage", last_modified=HEADER) == DataDate(
        "2026-11-24T10:31:02Z", "last-modified", key
    )
    assert version_date([key], published={key: "2026-11-28T06:00:00.000000"}) == DataDate("2026-11-28", "document", key)


def test_a_document_dated_after_the_builds_next_day_is_passed_over() -> None:
    key = "aws/ip-ranges-20261120.json"
    latest = latest_day("2026-11-29T05:30:00+00:00")
    assert object_date(key, published="2100-01-01T00:00:00Z", latest=latest) == DataDate("2026-11-20", "name", key)
    assert object_date("aws/ip-ranges.json", published="2026-12-01T00:00:00", latest=latest) is None
    assert object_date(key, published="2026-11-30T23:00:00", latest=latest) == DataDate("2026-11-30", "document", key)
