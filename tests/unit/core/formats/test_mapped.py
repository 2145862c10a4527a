"""IPv4-mapped IPv6 ranges (``::ffff:0:0/96``) are stored where lookups look for them: as IPv4.

Lookups answer ``::ffff:1.2.3.4`` as ``1.2.3.4``, so a file's mapped ranges are read as IPv4 ranges, and a range
that straddles the block is split around it; each part then competes under the overlap rule with the ranges of
its family. Checked against the brute-force reference over the original rows (``tests.reference``).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fencepost.core.formats.base import ReadOptions
from fencepost.core.formats.choice import read_ranges
from fencepost.core.space.addresses import (
    MAPPED_FIRST,
    MAPPED_LAST,
    TOP,
    V4,
    V6,
    format_address,
    parse_address,
    unmapped,
)
from fencepost.core.versions.build import Collector, ProblemLog
from tests.reading import answer_row
from tests.reference import answer_of_rows

Span = tuple[int, int, int]  # family, start, end


def test_unmapped_leaves_ranges_outside_the_block_alone() -> None:
    assert unmapped(V4, 5, 9) == [(V4, 5, 9)]
    assert unmapped(V6, 0, MAPPED_FIRST - 1) == [(V6, 0, MAPPED_FIRST - 1)]
    assert unmapped(V6, MAPPED_LAST + 1, TOP[V6]) == [(V6, MAPPED_LAST + 1, TOP[V6])]


def test_unmapped_turns_the_mapped_part_into_ipv4_and_keeps_the_rest() -> None:
    assert unmapped(V6, MAPPED_FIRST + 16, MAPPED_FIRST + 31) == [(V4, 16, 31)]
    assert unmapped(V6, 7, MAPPED_FIRST + 1) == [(V6, 7, MAPPED_FIRST - 1), (V4, 0, 1)]
    assert unmapped(V6, MAPPED_LAST - 1, MAPPED_LAST + 9) == [
        (V4, TOP[V4] - 1, TOP[V4]),
        (V6, MAPPED_LAST + 1, MAPPED_LAST + 9),
    ]
    assert unmapped(V6, 0, TOP[V6]) == [(V6, 0, MAPPED_FIRST - 1), (V4, 0, TOP[V4]), (V6, MAPPED_LAST + 1, TOP[V6])]


def _near(point: int) -> st.SearchStrategy[int]:
    return st.integers(max(0, point - 4), min(TOP[V6], point + 4))


_V6_POINTS = st.one_of(_near(MAPPED_FIRST), _near(MAPPED_LAST), _near(MAPPED_FIRST + 2**31), st.integers(0, TOP[V6]))
_V4_POINTS = st.one_of(st.integers(0, 8), st.integers(TOP[V4] - 8, TOP[V4]), st.integers(2**31 - 4, 2**31 + 4))


@st.composite
def rows(draw: st.DrawFn) -> list[Span]:
    """IPv6 rows in and around the mapped block, and IPv4 rows where their mapped parts land."""
    spans: list[Span] = []
    for _ in range(draw(st.integers(1, 10))):
        family = draw(st.sampled_from([V4, V6, V6]))
        points = _V4_POINTS if family == V4 else _V6_POINTS
        repeat: bool = draw(st.booleans())
        if spans and repeat:  # the same range again, later in the file
            spans.append(draw(st.sampled_from(spans)))
            continue
        low, high = sorted(draw(st.lists(points, min_size=2, max_size=2)))
        spans.append((family, low, high))
    return spans


def _loaded(spans: list[Span]) -> Collector:
    text = "start,end,row\n" + "".join(
        f"{format_address(family, start)},{format_address(family, end)},{row}\n"
        for row, (family, start, end) in enumerate(spans)
    )
    collector = Collector()
    read_ranges("f.csv", text.encode().splitlines(keepends=True), ReadOptions(), collector, ProblemLog())
    return collector


def _answer(collector: Collector, family: int, value: int) -> int | None:
    return answer_row(collector, family, value, 0)


@given(rows())
def test_lookups_of_loaded_mapped_ranges_follow_the_overlap_rule(spans: list[Span]) -> None:
    # Given rows loaded the way the loader reads them
    collector = _loaded(spans)
    # When every start, end and their neighbours is looked up as a lookup parses it (mapped means IPv4)
    probes = {
        parse_address(format_address(f, a)) for f, s, e in spans for a in (s - 1, s, e, e + 1) if 0 <= a <= TOP[f]
    }
    # Then the flattened pieces answer as the brute-force reference over the original rows does
    for family, address in sorted(probes):
        assert _answer(collector, family, address) == answer_of_rows(spans, family, address), (family, address)


def test_a_mapped_range_competes_with_native_ipv4_ranges_of_the_same_file() -> None:
    # Given a native /16 and a later, narrower mapped /24 inside it
    collector = _loaded([(V4, 0x01000000, 0x0100FFFF), (V6, MAPPED_FIRST | 0x01000000, MAPPED_FIRST | 0x010000FF)])
    # Then the mapped /24 wins inside it, the /16 around it, as for any nested pair
    assert _answer(collector, V4, 0x01000005) == 1
    assert _answer(collector, V4, 0x01000105) == 0
    assert collector.families[V6].starts == []
