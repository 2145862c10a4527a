"""The line formats: RIR delegated statistics files and lists of networks (FireHOL netsets, Spamhaus DROP).

Each is recognised at its first line that is not a comment, without confusing the column layouts; its bad lines
are problems with their line numbers; and what it loads answers lookups as the brute-force reference over its
records does (``tests.reference``), IPv4-mapped IPv6 records included.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fencepost.core.formats.base import FileError, Layout, ReadOptions
from fencepost.core.space.addresses import (
    BITS,
    MAPPED_FIRST,
    MAPPED_LAST,
    TOP,
    V4,
    V6,
    format_address,
    parse_address,
)
from fencepost.core.storage.items import MAX_ITEM_BYTES
from fencepost.core.versions.build import Collector
from tests.reading import address as a
from tests.reading import answer_row
from tests.reading import collected as _ranges
from tests.reference import answer_of_rows
from tests.support.formats import problems_of, read_sample

Span = tuple[int, int, int]  # family, start, end


# --- RIR delegated statistics files -------------------------------------------------------------------------

RIPE_EXTENDED = """\
# delegated-ripencc-extended-latest (a few lines of it)
2|ripencc|1700000000|6|19830705|20231114|+0100
ripencc|*|asn|*|2|summary
ripencc|*|ipv4|*|3|summary
ripencc|*|ipv6|*|1|summary
ripencc|EU|asn|7|1|19930901|allocated|4a1c3b2e-0f5d-4f57-9c4e-6a3a1d0f2b11
ripencc|FR|ipv4|2.0.0.0|1048576|20100712|allocated|0f5a0b8c-1b8e-4c58-b9c9-3f7d0a8b1e22
ripencc||ipv4|2.56.0.0|768||available|
ripencc|DE|ipv4|2.57.0.0|256|20190315|assigned|7d2e4c1a-2f6b-4e3b-8a5c-9b0e1f2a3c44|e-stats|more
ripencc|NL|ipv6|2001:610::|32|19990819|allocated|0f5a0b8c-1b8e-4c58-b9c9-3f7d0a8b1e22
ripencc|SE|asn|1653|1|19930901|allocated|5b3c2d1e-0a9f-4e8d-7c6b-5a4938271605
"""


def test_a_ripe_extended_file_loads_its_ipv4_and_ipv6_records_and_skips_the_rest() -> None:
    summary, collector, problems = read_sample(RIPE_EXTENDED)
    assert (summary.layout, summary.delimiter, summary.header) == (Layout.RIR, "|", False)
    assert summary.columns == ("registry", "cc", "date", "status", "opaque_id")
    assert (summary.rows, problems.count) == (4, 0)
    assert _ranges(collector, V4) == [
        (
            a("2.0.0.0"),
            a("2.15.255.255"),
            ("ripencc", "FR", "20100712", "allocated", "0f5a0b8c-1b8e-4c58-b9c9-3f7d0a8b1e22"),
        ),
        (a("2.56.0.0"), a("2.56.2.255"), ("ripencc", "", "", "available", "")),  # 768 addresses: not a CIDR block
        (
            a("2.57.0.0"),
            a("2.57.0.255"),
            ("ripencc", "DE", "20190315", "assigned", "7d2e4c1a-2f6b-4e3b-8a5c-9b0e1f2a3c44"),
        ),
    ]
    assert _ranges(collector, V6) == [
        (
            a("2001:610::"),
            a("2001:610:ffff:ffff:ffff:ffff:ffff:ffff"),
            ("ripencc", "NL", "19990819", "allocated", "0f5a0b8c-1b8e-4c58-b9c9-3f7d0a8b1e22"),
        )
    ]


def test_a_plain_delegated_file_has_an_empty_opaque_id_and_version_2_3_is_recognised() -> None:
    summary, collector, _ = read_sample(
        "2.3|apnic|20231114|3|19830613|20231113|+1000\n"
        "apnic|*|ipv4|*|2|summary\n"
        "apnic|AU|ipv4|1.0.0.0|256|20110811|assigned\n"
        "apnic|CN|ipv4|1.0.1.0|256|20110414|allocated\n"
    )
    assert summary.layout is Layout.RIR
    assert _ranges(collector, V4)[1] == (a("1.0.1.0"), a("1.0.1.255"), ("apnic", "CN", "20110414", "allocated", ""))


def test_a_delegated_file_without_a_version_line_is_recognised_by_its_first_record() -> None:
    summary, collector, _ = read_sample("arin|US|ipv4|3.0.0.0|16777216|19880223|allocated|e5e3b9c13678dfd56\n")
    assert summary.layout is Layout.RIR
    assert _ranges(collector, V4) == [
        (a("3.0.0.0"), a("3.255.255.255"), ("arin", "US", "19880223", "allocated", "e5e3b9c13678dfd56"))
    ]


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ("ripencc|FR|ipv4|2.1.0.0|0|20100712|allocated", "count 0"),
        ("ripencc|FR|ipv4|2.1.0.x|256|20100712|allocated", "start '2.1.0.x' is not an IPv4 or IPv6 address"),
        ("ripencc|FR|ipv4|2001:db8::|256|20100712|allocated", "is not an IPv4 address"),
        ("ripencc|FR|ipv4|255.255.255.0|257|20100712|allocated", "257 addresses from 255.255.255.0 run past"),
        ("ripencc|FR|ipv4|2.1.0.0|25x|20100712|allocated", "is not a number of addresses"),
        ("ripencc|FR|ipv4|2.1.0.0|" + "9" * 5000 + "|20100712|allocated", "larger than any IPv6 address"),
        ("ripencc|NL|ipv6|2001:db8::|129|19990819|allocated", "prefix longer than 128 bits"),
        ("ripencc|NL|ipv6|2001:db8::1|32|19990819|allocated", "host bits set"),
        ("ripencc|NL|ipv6|2.1.0.0|24|19990819|allocated", "is not an IPv6 address"),
        ("ripencc|FR|ipv4|2.1.0.0|256", "5 fields where a record has at least 7"),
        ("ripencc|FR|ipv5|2.1.0.0|256|20100712|allocated", "type 'ipv5' is not ipv4, ipv6 or asn"),
        ("ripencc|FR|ipv4|2.1.0.0|256|20100712|allocated|" + "x" * MAX_ITEM_BYTES, "does not fit a 400 KB"),
    ],
)
def test_bad_delegated_records_are_problems_with_their_line(record: str, reason: str) -> None:
    summary, collector, problems = read_sample(
        "2|ripencc|1|3|19830705|20231114|+0100\n"
        "ripencc|FR|ipv4|2.0.0.0|256|20100712|allocated\n"
        f"{record}\n"
        "ripencc|FR|ipv4|2.2.0.0|256|20100712|allocated\n"
    )
    assert summary.rows == 2
    assert len(_ranges(collector, V4)) == 2
    ((line, got),) = problems_of(problems)
    assert line == 3
    assert reason in got
    assert len(got) < 200


def test_a_delegated_file_of_asn_records_only_has_no_ranges() -> None:
    with pytest.raises(FileError, match=r"rir-delegated format\) has no ranges"):
        read_sample("2|ripencc|1|1|19830705|20231114|+0100\nripencc|EU|asn|7|1|19930901|allocated\n")


def test_the_settings_may_rename_the_delegated_columns_but_not_change_their_number() -> None:
    options = ReadOptions(columns=("rir", "country", "since", "state", "handle"))
    summary, _, _ = read_sample(RIPE_EXTENDED, options)
    assert summary.columns == ("rir", "country", "since", "state", "handle")
    with pytest.raises(FileError, match="settings name 1 columns but the file has 5"):
        read_sample(RIPE_EXTENDED, ReadOptions(columns=("country",)))


# --- detection does not confuse the column layouts -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "layout", "columns"),
    [
        (
            "network,geoname_id,is_anonymous_proxy\n1.0.0.0/24,2077456,0\n",
            Layout.CIDR,
            ("geoname_id", "is_anonymous_proxy"),
        ),
        ("1.0.0.0/24,2077456,0\n", Layout.CIDR, ("col2", "col3")),
        ("network\n1.0.0.0/24\n", Layout.CIDR, ()),  # one CIDR column behind a header: the CIDR layout, as before
        ("1.0.0.0/24\n", Layout.LIST, ("comment",)),  # one CIDR column, no header: a list
        ("1.0.0.0\t1.0.0.255\tAU\n", Layout.START_END, ("col3",)),
        ("start,end,country\n1.0.0.0,1.0.0.255,AU\n", Layout.START_END, ("country",)),
        ("16777216,16777471,a|b|c|d|e|f\n", Layout.START_END, ("col3",)),
        ("Netblock,start,end,m\n1.0.0.0/24,1.0.0.0,1.0.0.255,x\n", Layout.NETBLOCK, ("m",)),
        ("1.0.0.0/24 ; a, b\n", Layout.LIST, ("comment",)),  # a comma in the comment only
    ],
)
def test_detection_leaves_the_column_layouts_as_they_were(text: str, layout: Layout, columns: tuple[str, ...]) -> None:
    summary, collector, problems = read_sample(text)
    assert (summary.layout, summary.columns, problems.count) == (layout, columns, 0)
    assert len(collector) == 1


def test_a_forced_header_reads_a_headerless_cidr_column_as_the_cidr_layout() -> None:
    summary, collector, _ = read_sample("1.0.0.0/24\n2.0.0.0/24\n", ReadOptions(header=True))
    assert (summary.layout, summary.header, summary.columns, len(collector)) == (Layout.CIDR, True, (), 1)


def test_a_file_of_comments_only_is_left_to_the_column_layouts() -> None:
    with pytest.raises(FileError, match="header but no ranges"):
        read_sample("# nothing here\n")


# --- brute force: what a random file loads answers as its records do -----------------------------------------


def _near(point: int) -> st.SearchStrategy[int]:
    return st.integers(max(0, point - 4), min(TOP[V6], point + 4))


_V6_POINTS = st.one_of(_near(MAPPED_FIRST), _near(MAPPED_LAST), _near(MAPPED_FIRST + 2**31), st.integers(0, TOP[V6]))
_V4_POINTS = st.one_of(st.integers(0, 8), st.integers(TOP[V4] - 8, TOP[V4]), st.integers(2**31 - 4, 2**31 + 4))
_PREFIXES = {V4: st.integers(0, 32), V6: st.one_of(st.integers(0, 128), st.integers(78, 98), st.integers(120, 128))}


@st.composite
def _network(draw: st.DrawFn, family: int) -> tuple[int, int, int, int]:
    """``(family, first, last, prefix)`` of a network near the edges that matter (the mapped block for IPv6)."""
    address = draw(_V4_POINTS if family == V4 else _V6_POINTS)
    prefix = draw(_PREFIXES[family])
    host = (1 << (BITS[family] - prefix)) - 1
    first = address & ~host
    return family, first, first | host, prefix


_SKIPPED_RIR = st.sampled_from(
    ["# a comment", "ripencc|*|ipv4|*|9|summary", "ripencc|EU|asn|7|1|19930901|allocated|x", ""]
)


@st.composite
def rir_files(draw: st.DrawFn) -> tuple[str, list[Span]]:
    """A delegated file (version line, records, lines skipped between them) and its records' ranges in order."""
    lines: list[str] = ["2.3|ripencc|1|0|19830705|20231114|+0100"]
    spans: list[Span] = []
    for _ in range(draw(st.integers(1, 10))):
        if draw(st.booleans()):
            lines.append(draw(_SKIPPED_RIR))
        if spans and draw(st.integers(0, 4)) == 0:  # the same range again, later in the file
            family, first, last = draw(st.sampled_from(spans))
            spans.append((family, first, last))
        elif draw(st.booleans()):
            first = draw(_V4_POINTS)
            last = draw(st.integers(first, min(TOP[V4], first + draw(st.sampled_from([0, 3, 255, 767, 2**31])))))
            spans.append((V4, first, last))
        else:
            family, first, last, _ = draw(_network(V6))
            spans.append((V6, first, last))
        family, first, last = spans[-1]
        row = len(spans) - 1
        if family == V4:
            record = f"ipv4|{format_address(V4, first)}|{last - first + 1}"
        else:
            record = f"ipv6|{format_address(V6, first)}|{128 - (last - first).bit_length()}"
        lines.append(f"ripencc|ZZ|{record}|20200101|allocated|{row}")
    return "".join(f"{line}\n" for line in lines), spans


@st.composite
def list_files(draw: st.DrawFn) -> tuple[str, list[Span]]:
    """A list (a comment header, networks and addresses, some with a comment) and its entries' ranges in order."""
    lines: list[str] = ["# a netset", "; or a DROP list"]
    spans: list[Span] = []
    for _ in range(draw(st.integers(1, 10))):
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["# a comment", "; another", ""])))
        family = draw(st.sampled_from([V4, V6, V6]))
        if draw(st.booleans()):
            address = draw(_V4_POINTS if family == V4 else _V6_POINTS)
            spans.append((family, address, address))
            entry = format_address(family, address)
        else:
            family, first, last, prefix = draw(_network(family))
            spans.append((family, first, last))
            entry = f"{format_address(family, first)}/{prefix}"
        row = len(spans) - 1
        lines.append(f"{entry} ; {row}" if draw(st.booleans()) else f"{entry}\t# {row}")
    return "".join(f"{line}\n" for line in lines), spans


def _answer(collector: Collector, family: int, value: int) -> int | None:
    return answer_row(collector, family, value, -1)


def _check_against_the_reference(text: str, spans: list[Span]) -> None:
    # Given a file read the way the loader reads it
    summary, collector, problems = read_sample(text)
    assert (summary.rows, problems.count) == (len(spans), 0), problems_of(problems)
    # When every start, end and their neighbours is looked up as a lookup parses it (mapped means IPv4)
    probes = {
        parse_address(format_address(f, x)) for f, s, e in spans for x in (s - 1, s, e, e + 1) if 0 <= x <= TOP[f]
    }
    # Then the flattened pieces answer as the brute-force reference over the file's records does
    for family, address in sorted(probes):
        assert _answer(collector, family, address) == answer_of_rows(spans, family, address), (family, address)


@given(rir_files())
def test_lookups_of_a_loaded_delegated_file_follow_the_overlap_rule(file: tuple[str, list[Span]]) -> None:
    _check_against_the_reference(*file)


@given(list_files())
def test_lookups_of_a_loaded_list_follow_the_overlap_rule(file: tuple[str, list[Span]]) -> None:
    _check_against_the_reference(*file)
