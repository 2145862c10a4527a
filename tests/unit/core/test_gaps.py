"""Gaps: the pure functions at their edges, and NOT_FOUND answers on generated range sets, whose gap must be exactly
the stretch no row covers (brute force over the original rows, ``tests.reference``) with its largest CIDR block."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.core.space.addresses import BITS, MAPPED_FIRST, MAPPED_LAST, TOP, V4, V6, unmapped
from fencepost.core.space.gaps import clip, gap_after, gap_below, gap_end, intersect
from fencepost.core.storage.keys import PARTITION_BITS, Probe
from fencepost.core.versions.build import FamilyRanges
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.answers import Answer, Miss
from fencepost.reading.lookup import Lookup
from tests.fakes.ranges import MemoryStore
from tests.reference import answer_of_rows, check_gap, gap_of_rows
from tests.strategies import related_span

Row = tuple[int, int, int]  # family, start, end: a range as a file gives it
TOP4, TOP6 = TOP[V4], TOP[V6]

# -- the pure functions --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "end", "next_start", "expected"),
    [
        (V4, 10, 11, None),  # the next piece follows at once
        (V4, 10, 12, 11),
        (V4, 10, None, TOP4),  # the last piece: the gap runs to the top of the family
        (V4, TOP4, None, None),  # the last piece ends at the top
        (V6, 0, 1, None),
        (V6, 0, None, TOP6),
        (V6, TOP6 - 1, TOP6, None),
        (V6, 5, MAPPED_LAST + 1, MAPPED_LAST),  # over the mapped block: stored whole, cut when answered
    ],
)
def test_gap_end_is_the_last_address_before_the_next_piece(
    family: int, end: int, next_start: int | None, expected: int | None
) -> None:
    assert gap_end(family, end, next_start) == expected


def test_gap_below_reaches_from_zero_to_the_first_piece() -> None:
    assert gap_below(V4, 0, None) == (0, TOP4)  # no IPv4 piece at all
    assert gap_below(V4, TOP4, None) == (0, TOP4)
    assert gap_below(V4, 0, 1) == (0, 0)
    assert gap_below(V4, 4, 9) == (0, 8)
    with pytest.raises(ValueError, match="not below"):
        gap_below(V4, 9, 9)
    with pytest.raises(ValueError, match="not below"):
        gap_below(V4, 0, 0)


def test_an_ipv6_gap_stops_at_the_mapped_block() -> None:
    assert gap_below(V6, 0, None) == (0, MAPPED_FIRST - 1)
    assert gap_below(V6, MAPPED_FIRST - 1, None) == (0, MAPPED_FIRST - 1)
    assert gap_below(V6, MAPPED_LAST + 1, None) == (MAPPED_LAST + 1, TOP6)
    assert gap_below(V6, TOP6, TOP6 + 1) == (MAPPED_LAST + 1, TOP6)
    assert gap_below(V6, 7, MAPPED_FIRST - 5) == (0, MAPPED_FIRST - 6)  # below the block: nothing to cut
    assert gap_after(V6, 6, 5, TOP6) == (6, MAPPED_FIRST - 1)
    assert gap_after(V6, MAPPED_LAST + 1, 5, TOP6) == (MAPPED_LAST + 1, TOP6)
    assert gap_after(V6, TOP6, MAPPED_LAST + 1, TOP6) == (MAPPED_LAST + 2, TOP6)
    with pytest.raises(ValueError, match="IPv4"):
        gap_below(V6, MAPPED_FIRST, None)
    with pytest.raises(ValueError, match="IPv4"):
        clip(V6, MAPPED_LAST, (0, TOP6))


def test_gap_after_holds_only_addresses_past_the_piece_up_to_its_gap_end() -> None:
    assert gap_after(V4, 11, 10, 20) == (11, 20)
    assert gap_after(V4, 20, 10, 20) == (11, 20)
    assert gap_after(V4, TOP4, TOP4 - 1, TOP4) == (TOP4, TOP4)
    for address in (10, 21):
        with pytest.raises(ValueError, match="not in the gap"):
            gap_after(V4, address, 10, 20)


def test_clip_leaves_ipv4_and_one_sided_stretches_alone_and_intersect_finds_the_common_part() -> None:
    assert clip(V4, 5, (0, TOP4)) == (0, TOP4)  # IPv4 has no mapped block
    assert clip(V6, 5, (0, 9)) == (0, 9)
    assert clip(V6, TOP6, (MAPPED_LAST + 1, TOP6)) == (MAPPED_LAST + 1, TOP6)
    assert intersect([(0, 10), (5, 20), (3, 7)]) == (5, 7)
    assert intersect([(4, 4)]) == (4, 4)
    with pytest.raises(ValueError, match="no address in common"):
        intersect([(0, 4), (5, 9)])


def test_stored_pieces_carry_the_gap_after_them_unless_the_next_follows_at_once() -> None:
    ranges = FamilyRanges(V4)
    for start, end in [(0, 9), (10, 19), (30, 39), (35, 36), (TOP4 - 1, TOP4)]:
        ranges.add(start, end, ("x",))
    pieces = ranges.pieces()
    gaps = [(piece.start, piece.end, pieces.gap_end(index)) for index, piece in enumerate(pieces)]
    assert gaps == [
        (0, 9, None),
        (10, 19, 29),
        (30, 34, None),
        (35, 36, None),
        (37, 39, TOP4 - 2),
        (TOP4 - 1, TOP4, None),
    ]
    items = list(ranges.items("ds", 1, pieces))
    assert ["g" in item for item in items] == [False, True, False, False, True, False]


# -- NOT_FOUND answers on generated range sets ---------------------------------------------------------------------


def _points(family: int) -> st.SearchStrategy[int]:
    """Addresses anywhere, or close to a partition boundary, the ends of the family, or the mapped block's edges."""
    shift = BITS[family] - PARTITION_BITS[family]
    near_boundary = st.integers(0, (1 << PARTITION_BITS[family]) - 1).flatmap(
        lambda p: st.integers(max(0, (p << shift) - 3), min(TOP[family], (p << shift) + 3))
    )
    edges = [0, 1, 2, TOP[family] - 2, TOP[family] - 1, TOP[family]]
    if family == V6:
        edges += [MAPPED_FIRST - 2, MAPPED_FIRST - 1, MAPPED_FIRST, MAPPED_LAST, MAPPED_LAST + 1, MAPPED_LAST + 2]
    return st.one_of(st.integers(0, TOP[family]), near_boundary, st.sampled_from(edges))


@st.composite
def range_sets(draw: st.DrawFn) -> list[Row]:
    """Rows of both families: random, nested in an earlier one, overlapping it, repeating it, or just beside it."""
    rows: list[Row] = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["random", "nested", "overlap", "duplicate", "beside"])) if rows else "random"
        if kind == "random":
            family = draw(st.sampled_from([V4, V6]))
            start, end = sorted(draw(st.lists(_points(family), min_size=2, max_size=2)))
        else:
            family, low, high = draw(st.sampled_from(rows))
            start, end = related_span(draw, kind, family, (low, high), [0, 1, 2, 2**20])
        rows.append((family, start, end))
    return rows


def _publish(store: MemoryStore, rows: list[Row], labels: list[str], *, gaps: bool, merge: bool) -> VersionInfo:
    """Store the rows as a load does: IPv6 rows over the mapped block split, their mapped part as IPv4."""
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    for (family, start, end), label in zip(rows, labels, strict=True):
        for part_family, part_start, part_end in unmapped(family, start, end):
            ranges[part_family].add(part_start, part_end, (label,))
    return store.publish("ds", 3, ranges, ["label"], gaps=gaps, merge_neighbours=merge)


def _as_looked_up(family: int, address: int) -> tuple[int, int]:
    """An address as a lookup asks for it: an IPv4-mapped IPv6 address as the IPv4 address it carries."""
    if family == V6 and MAPPED_FIRST <= address <= MAPPED_LAST:
        return V4, address - MAPPED_FIRST
    return family, address


def _probes(rows: list[Row], extra: list[tuple[int, int]]) -> list[tuple[int, int]]:
    around = [(f, a) for f, s, e in rows for a in (s - 1, s, e, e + 1) if 0 <= a <= TOP[f]]
    return sorted({_as_looked_up(f, a) for f, a in around + extra})


_extra_points = st.lists(st.one_of(*(st.tuples(st.just(f), _points(f)) for f in (V4, V6))), max_size=8)


@settings(max_examples=250, deadline=None)
@given(rows=range_sets(), extra=_extra_points, merge=st.booleans(), data=st.data())
def test_a_miss_reports_exactly_the_uncovered_stretch_around_the_address(
    rows: list[Row], extra: list[tuple[int, int]], merge: bool, data: st.DataObject
) -> None:
    # Given rows published as a load publishes them (with few labels, touching equal ranges may be merged)
    labels = [data.draw(st.sampled_from("ab")) if merge else f"r{row}" for row in range(len(rows))]
    store = MemoryStore()
    info = _publish(store, rows, labels, gaps=True, merge=merge)
    lookup = Lookup(store, ttl=60)
    for family, address in _probes(rows, extra):
        # When each address is looked up
        before = store.queries
        outcome = lookup.answer(info, family, address)
        # Then it costs at most one Query, found or not
        assert store.queries - before <= 1
        # And it is found exactly where a row covers it, with the overlap rule's answer
        expected = answer_of_rows(rows, family, address)
        if expected is not None:
            assert isinstance(outcome, Answer), (family, address, outcome)
            assert outcome.hit.values == [labels[expected]]
            continue
        assert isinstance(outcome, Miss), (family, address, outcome)
        # And a miss reports the whole stretch no row covers, cut at the mapped block, and its largest block
        assert outcome.gap == gap_of_rows(rows, family, address), (family, address)
        details = outcome.details()
        assert (details["dataset"], details["version"]) == ("ds", 3)
        check_gap(rows, family, address, details["gap"])


@settings(max_examples=40, deadline=None)
@given(rows=range_sets(), extra=_extra_points)
def test_a_version_built_before_gaps_answers_misses_without_a_gap(
    rows: list[Row], extra: list[tuple[int, int]]
) -> None:
    store = MemoryStore()
    info = _publish(store, rows, [f"r{row}" for row in range(len(rows))], gaps=False, merge=False)
    assert not info.gaps
    lookup = Lookup(store, ttl=60)
    for family, address in _probes(rows, extra):
        outcome = lookup.answer(info, family, address)
        assert isinstance(outcome, Answer) == (answer_of_rows(rows, family, address) is not None)
        if isinstance(outcome, Miss):
            assert outcome.gap is None
            assert "gap" not in outcome.details()
            assert outcome.stretch == (address, address)


def test_gaps_around_an_ipv6_range_over_the_mapped_block_stop_at_the_block() -> None:
    rows: list[Row] = [(V6, MAPPED_FIRST - 10, MAPPED_LAST + 10), (V6, 2**100, 2**100 + 5), (V4, 5, 9)]
    store = MemoryStore()
    info = _publish(store, rows, ["over", "high", "low"], gaps=True, merge=False)
    lookup = Lookup(store, ttl=60)
    expected_gaps = {
        0: (0, MAPPED_FIRST - 11),
        MAPPED_FIRST - 11: (0, MAPPED_FIRST - 11),
        MAPPED_LAST + 11: (MAPPED_LAST + 11, 2**100 - 1),
        TOP6: (2**100 + 6, TOP6),
    }
    for address, gap in expected_gaps.items():
        outcome = lookup.answer(info, V6, address)
        assert isinstance(outcome, Miss)
        assert outcome.gap == gap
        check_gap(rows, V6, address, outcome.details()["gap"])
    # The mapped part of the IPv6 range is stored as IPv4, 0.0.0.0 to 255.255.255.255: no IPv4 address is missing
    answers = [lookup.answer(info, V4, address) for address in (0, 7, TOP4)]
    assert [answer.hit.values if isinstance(answer, Answer) else None for answer in answers] == [
        ["over"],
        ["low"],
        ["over"],
    ]


def test_the_memory_store_finds_the_last_item_at_or_below_the_probe_and_counts_queries() -> None:
    ranges = FamilyRanges(V4)
    for start in [1 << 24, (1 << 24) + 10, 3 << 24]:
        ranges.add(start, start + 4, (str(start),))
    store = MemoryStore()
    info = store.publish("ds", 1, {V4: ranges}, ["start"])
    assert (store.get_live("ds"), store.get_live("other")) == (LivePointer("ds", 1), None)
    assert store.get_version("ds", 1) == info
    expected = {
        0: None,  # below every piece: the directory names no partition
        1 << 24: 1 << 24,
        (1 << 24) + 9: 1 << 24,
        (1 << 24) + 10: (1 << 24) + 10,
        (2 << 24) + 5: (1 << 24) + 10,  # the last piece of a lower partition
        TOP4: 3 << 24,
    }
    for address, found in expected.items():
        probe = info.directories[V4].probe(address)
        hit = store.find("ds", 1, probe) if probe else None
        assert (hit.start if hit else None) == found, address
    assert store.queries == len(expected) - 1
    assert store.find("ds", 1, Probe(V4, 2, 0)) is None  # an empty partition
    assert store.find("ds", 1, Probe(V4, 1, 9)).values == ["16777216"]  # type: ignore[union-attr]
