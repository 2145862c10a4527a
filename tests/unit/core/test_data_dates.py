"""The data's own date (``fencepost.core.versions.data_dates``): a date in real publishers' names, a MaxMind DB build
epoch, an RIR file's version line, a release's Last-Modified, the data's own statement preferred over the header
over the name, and a version as old as its oldest dated object."""

from __future__ import annotations

from pathlib import Path

import pytest

from fencepost.core.formats.base import Layout, ReadOptions
from fencepost.core.formats.choice import read_ranges
from fencepost.core.versions.build import Collector, ProblemLog
from fencepost.core.versions.data_dates import (
    DataDate,
    from_day,
    from_epoch,
    from_http_date,
    from_name,
    latest_day,
    object_date,
    version_date,
)

SHARED_DATA = Path(__file__).resolve().parents[4] / "shared" / "data"
EPOCH = 1_795_516_262  # 2026-11-24T10:31:02Z
HEADER = "Tue, 24 Nov 2026 10:31:02 GMT"


@pytest.mark.parametrize(
    ("key", "day"),
    [
        ("city/_fetched/GeoLite2-City_20261124/GeoLite2-City.mmdb", "2026-11-24"),  # MaxMind's tar.gz folder
        ("city/GeoLite2-City-CSV_20261124.zip", "2026-11-24"),
        ("rir/delegated-apnic-20261124", "2026-11-24"),  # the RIRs' dated files
        ("rir/delegated-ripencc-extended-20261124.txt", "2026-11-24"),
        ("asn/iptoasn-ip2country-v4-20241107.tsv.gz", "2024-11-07"),
        ("asn/iptoasn-ip2asn-v6-20251028.tsv.gz", "2025-10-28"),
        ("pfx/routeviews-rv2-20261124-1200.pfx2as.gz", "2026-11-24"),  # CAIDA: a time after the day
        ("geo/_history/2026-11-24/v4.csv", "2026-11-24"),  # a dated folder
        ("geo/export_2026_11_24.csv", "2026-11-24"),
        ("geo/_history/2026-11-01/GeoLite2-City_20261124.mmdb", "2026-11-24"),  # the release's own name is last
    ],
)
def test_a_date_in_a_publishers_name_is_found(key: str, day: str) -> None:
    assert from_name(key) == day


@pytest.mark.parametrize(
    "key",
    [
        "rir/delegated-arin-extended-latest",  # the RIRs' undated names
        "asn/ip2asn-combined.tsv.gz",
        "asn/ip2asn-v4-u32.tsv",
        "drop/drop_v4.json",
        "lists/firehol_level1.netset",
        "asn/asn-db-ip2asn-v4-subset-2019.tsv",  # a year alone is no day
        "geo/dbip-country-lite-2026-11.csv.gz",  # nor is a month
        "geo/12345678.csv",  # no month 56
        "geo/20261324.csv",  # no month 13
        "geo/20260230.csv",  # no 30 February
        "geo/2026112400.csv",  # a longer run of digits is no date
        "geo/19000101.csv",  # before any public IP data
        "geo/2026-11_24.csv",  # separators that differ
    ],
)
def test_a_name_without_a_date_standing_alone_has_none(key: str) -> None:
    assert from_name(key) is None


def test_the_shared_real_files_are_dated_by_their_names() -> None:
    names = sorted(path.name for path in SHARED_DATA.glob("*.ts*"))
    assert names, f"no data files in {SHARED_DATA}"
    assert {name: from_name(name) for name in names} == {
        "asn-db-ip2asn-v4-subset-2019.tsv": None,
        "iptoasn-ip2asn-v6-20251028.tsv.gz": "2025-10-28",
        "iptoasn-ip2country-v4-20241107.tsv.gz": "2024-11-07",
    }


def test_an_epoch_and_an_http_date_are_instants_in_utc() -> None:
    assert from_epoch(EPOCH) == "2026-11-24T10:31:02Z"
    assert from_http_date(HEADER) == "2026-11-24T10:31:02Z"
    assert from_http_date("Tue, 24 Nov 2026 11:31:02 +0100") == "2026-11-24T10:31:02Z"
    assert from_http_date("Tue, 24 Nov 2026 10:31:02 -0000") == "2026-11-24T10:31:02Z"  # no zone: GMT


@pytest.mark.parametrize("epoch", [None, 0, -5, True, 1.5e9, "1795516262", 10**20, 86_400])
def test_a_build_epoch_that_is_no_instant_of_ours_is_none(epoch: object) -> None:
    assert from_epoch(epoch) is None


@pytest.mark.parametrize("text", [None, "", "yesterday", "Tue, 99 Nov 2026 10:31:02 GMT", 1795516262])
def test_a_header_that_is_no_http_date_is_none(text: object) -> None:
    assert from_http_date(text) is None


def test_the_publishers_statement_comes_before_the_header_before_the_name() -> None:
    key = "city/GeoLite2-City_20261120.mmdb"
    assert object_date(key, epoch=EPOCH, last_modified="Mon, 23 Nov 2026 00:00:00 GMT") == DataDate(
        "2026-11-24T10:31:02Z", "mmdb", key
    )
    assert object_date(key, last_modified=HEADER) == DataDate("2026-11-24T10:31:02Z", "last-modified", key)
    assert object_date(key, epoch=0, last_modified="garbage") == DataDate("2026-11-20", "name", key)
    assert object_date("city/GeoLite2-City.mmdb") is None


def test_a_version_is_as_old_as_its_oldest_dated_object() -> None:
    keys = ["rir/delegated-apnic-20261124", "rir/delegated-arin-extended-latest", "rir/delegated-lacnic-20261122"]
    assert version_date(keys) == DataDate("2026-11-22", "name", "rir/delegated-lacnic-20261122")
    headers = {"rir/delegated-arin-extended-latest": "Sat, 21 Nov 2026 03:00:00 GMT"}
    assert version_date(keys, last_modified=headers) == DataDate(
        "2026-11-21T03:00:00Z", "last-modified", "rir/delegated-arin-extended-latest"
    )
    assert version_date(["drop/drop_v4.json", "drop/drop_v6.json"]) is None
    assert version_date([]) is None


APNIC = """\
# the head of delegated-apnic-extended-latest
2.3|apnic|20261124|3|19830613|20261123|+1000
apnic|*|ipv4|*|2|summary
apnic|AU|ipv4|1.0.0.0|256|20110811|assigned|A91872ED
apnic|CN|ipv4|1.0.1.0|256|20110414|allocated|A92E1062
apnic|JP|ipv6|2001:200::|35|19990813|allocated|A91D6E69
"""


def test_an_rir_files_version_line_states_the_day_its_data_runs_to() -> None:
    collector, problems = Collector(), ProblemLog()
    summary = read_ranges(
        "rir/delegated-apnic-extended-latest",
        APNIC.encode().splitlines(keepends=True),
        ReadOptions(),
        collector,
        problems,
    )
    assert (summary.layout, summary.rows, summary.stated) == (Layout.RIR, 3, "20261123")
    assert from_day(summary.stated) == "2026-11-23"
    assert [from_day(text) for text in ("2026112", "2026-11-23", "20261323", None, "２０２６１１２３")] == [None] * 5


def test_the_data_itself_comes_before_its_header_and_its_name() -> None:
    key = "rir/delegated-apnic-extended-20261124"
    stated = object_date(key, enddate="20261123", last_modified=HEADER)
    assert stated == DataDate("2026-11-23", "rir", key)
    assert object_date(key, enddate="garbage", last_modified=HEADER) == DataDate(
        "2026-11-24T10:31:02Z", "last-modified", key
    )
    assert version_date([key], enddates={key: "20261123"}) == stated


def test_a_date_after_the_build_is_no_date_of_its_data() -> None:
    # A build epoch or a Last-Modified in the future is a wrong clock, not the data's date: the next statement counts
    built = "2026-11-29T05:30:00+00:00"
    key = "city/GeoLite2-City_20261124.mmdb"
    in_2100 = 4_102_444_800  # 2100-01-01T00:00:00Z
    assert object_date(key, epoch=in_2100, latest=latest_day(built)) == DataDate("2026-11-24", "name", key)
    assert object_date(key, last_modified="Fri, 01 Jan 2100 00:00:00 GMT", latest=latest_day(built)) == DataDate(
        "2026-11-24", "name", key
    )
    assert object_date("geo/export-21000101.csv", latest=latest_day(built)) is None
    # A day a registry ahead of UTC writes (+1000, +1400) may be the build's next day
    rir = "rir/delegated-apnic-extended-latest"
    assert version_date([rir], enddates={rir: "20261130"}, latest=latest_day(built)) == DataDate(
        "2026-11-30", "rir", rir
    )
    assert version_date([rir], enddates={rir: "20261201"}, latest=latest_day(built)) is None
    assert latest_day("not a time") is None
    assert object_date(key, epoch=in_2100, latest=None) == DataDate("2100-01-01T00:00:00Z", "mmdb", key)
