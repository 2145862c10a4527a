"""CAIDA RouteViews prefix-to-AS files: a prefix, its length and every origin (several joined by ``_``, an AS set by
``,``) a line, IPv4 and IPv6; every bad entry a problem with its line."""

from __future__ import annotations

from fencepost.core.formats.base import Layout
from fencepost.core.space.addresses import V4, V6
from tests.reading import address as a
from tests.reading import collected as _ranges
from tests.support.formats import problems_of, read_sample
from tests.support.published import PFX2AS


def test_every_origin_is_kept() -> None:
    summary, collector, problems = read_sample(PFX2AS)
    assert (summary.layout, summary.columns, summary.rows, problems.count) == (Layout.PFX2AS, ("origins",), 6, 0)
    assert _ranges(collector, V4) == [
        (a("1.0.0.0"), a("1.0.0.255"), ("13335",)),
        (a("1.0.4.0"), a("1.0.7.255"), ("38803",)),
        (a("1.0.4.0"), a("1.0.4.255"), ("38803_56203",)),
        (a("1.6.0.0"), a("1.7.255.255"), ("4755,9583",)),
    ]
    assert _ranges(collector, V6) == [
        (a("2001:200::"), a("2001:200:ffff:ffff:ffff:ffff:ffff:ffff"), ("2500",)),
        (a("2001:db8::"), a("2001:db8:0:ffff:ffff:ffff:ffff:ffff"), ("64496_64497,64498",)),
    ]


def test_bad_entries_are_problems_with_their_lines() -> None:
    text = PFX2AS + "1.0.0.1\t24\t13335\n1.0.0.0\t24\tAS13335\n1.0.0.0\t24\n1.0.0.0\t24\t4294967296\n1.0.0.0\t99\t1\n"
    summary, _, problems = read_sample(text)
    assert summary.rows == 6
    reasons = problems_of(problems)
    assert [line for line, _ in reasons] == [7, 8, 9, 10, 11]
    assert "host bits set" in reasons[0][1]
    assert reasons[1][1] == "origins 'AS13335' are not AS numbers joined by '_' or ','"
    assert reasons[2][1] == "2 tab-separated fields: an entry has 3 (prefix, length, origins)"
    assert reasons[3][1] == "origins '4294967296' hold a number above 4294967295, the largest AS number"
    assert "longer than 32 bits" in reasons[4][1]


def test_start_end_files_with_tabs_are_not_pfx2as() -> None:
    assert read_sample("1.1.1.0\t1.1.1.255\t13335\n")[0].layout is Layout.START_END
    assert read_sample("16843008\t16843263\t13335\n")[0].layout is Layout.START_END
