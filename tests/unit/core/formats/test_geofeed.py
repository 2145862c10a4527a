"""RFC 8805 geofeeds: a prefix and its country, region, city and postal code a line, comments and empty fields,
IPv4 and IPv6; every bad entry a problem with its line; the column layouts still read what they read."""

from __future__ import annotations

from fencepost.core.formats.base import Layout, ReadOptions
from fencepost.core.space.addresses import V4, V6
from tests.reading import address as a
from tests.reading import collected as _ranges
from tests.support.formats import problems_of, read_sample
from tests.support.published import GEOFEED


def test_each_entry_is_a_prefix_with_its_place() -> None:
    summary, collector, problems = read_sample(GEOFEED)
    assert (summary.layout, summary.columns, summary.rows, problems.count) == (
        Layout.GEOFEED,
        ("country", "region", "city", "postal"),
        5,
        0,
    )
    assert _ranges(collector, V4) == [
        (a("192.0.2.0"), a("192.0.2.127"), ("US", "US-AL", "", "")),
        (a("192.0.2.5"), a("192.0.2.5"), ("US", "US-AL", "Alabaster", "35007")),
        (a("198.51.100.0"), a("198.51.100.255"), ("", "", "", "")),
        (a("203.0.113.0"), a("203.0.113.255"), ("AU", "AU-NSW", "Sydney", "")),  # postal left out: empty
    ]
    assert _ranges(collector, V6) == [
        (a("2001:db8::"), a("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"), ("PL", "PL-MZ", "", "02-784"))
    ]


def test_a_quoted_city_keeps_its_comma() -> None:
    _, collector, _ = read_sample('192.0.2.0/24,US,US-DC,"Washington, D.C.",20001\n')
    assert _ranges(collector, V4) == [(a("192.0.2.0"), a("192.0.2.255"), ("US", "US-DC", "Washington, D.C.", "20001"))]


def test_bad_entries_are_problems_with_their_lines() -> None:
    text = GEOFEED + "192.0.2.1/24,US,,,\n192.0.2.0/24,USA,,,\n192.0.2.0/24,US,,,,extra\nnot-a-prefix,US,,,\n"
    summary, _, problems = read_sample(text)
    assert summary.rows == 5
    reasons = problems_of(problems)
    assert [line for line, _ in reasons] == [9, 10, 11, 12]
    assert "host bits set" in reasons[0][1]
    assert reasons[1][1] == "country 'USA' is not an ISO 3166-1 alpha-2 code"
    assert reasons[2][1] == "6 fields: a geofeed entry has at most 5 (prefix,country,region,city,postal)"
    assert "not-a-prefix" in reasons[3][1]


def test_the_settings_may_rename_the_columns() -> None:
    summary, _, _ = read_sample(GEOFEED, ReadOptions(columns=("cc", "subdivision", "town", "zip")))
    assert summary.columns == ("cc", "subdivision", "town", "zip")


def test_a_geofeed_may_start_with_one_address() -> None:
    summary, collector, _ = read_sample("2001:db8::1,DE,DE-BE,Berlin,\n192.0.2.0/24,DE,,,\n")
    assert (summary.layout, summary.rows) == (Layout.GEOFEED, 2)
    assert _ranges(collector, V6) == [(a("2001:db8::1"), a("2001:db8::1"), ("DE", "DE-BE", "Berlin", ""))]


def test_column_files_are_not_geofeeds() -> None:
    # a CIDR file with a header, one of three columns, and one whose second cell is no country code
    assert read_sample("network,country,region,city,postal\n192.0.2.0/24,US,US-AL,,\n")[0].layout is Layout.CIDR
    assert read_sample("192.0.2.0/24,US,13335\n")[0].layout is Layout.CIDR
    assert read_sample("192.0.2.0/24,13335,US,x,y\n")[0].layout is Layout.CIDR
    assert read_sample("192.0.2.0/24,US,California,x,y\n")[0].layout is Layout.CIDR
    assert read_sample("192.0.2.0,192.0.2.255,US,US-AL\n")[0].layout is Layout.START_END
