"""Flattening applies the overlap rule exactly: checked against brute force on random and real ranges."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fencepost.core.space.ranges import Piece, answer_at, flatten
from tests.support import SMALL_FILE, V4_FILE, family_ranges, read_tsv


def _spans(draw: st.DrawFn, top: int) -> tuple[int, int]:
    a = draw(st.integers(0, top))
    b = draw(st.integers(0, top))
    return min(a, b), max(a, b)


@st.composite
def range_sets(draw: st.DrawFn) -> list[tuple[int, int]]:
    """Small address spaces so that nesting, partial overlaps, duplicates and shared ends are frequent."""
    top = draw(st.sampled_from([15, 63, 2**128 - 1]))
    spans = [_spans(draw, top) for _ in range(draw(st.integers(0, 12)))]
    repeat: bool = draw(st.booleans())
    if spans and repeat:
        spans.append(draw(st.sampled_from(spans)))  # an identical range, later in the file
    return spans


def _check(spans: list[tuple[int, int]], pieces: list[Piece]) -> None:
    starts, ends = [s for s, _ in spans], [e for _, e in spans]
    # Pieces are ordered and never overlap
    for before, after in itertools.pairwise(pieces):
        assert before.end < after.start
    # Every piece holds one answer that agrees with brute force at its edges and around them
    for piece in pieces:
        assert piece.start <= piece.end
        for address in {piece.start, piece.end, (piece.start + piece.end) // 2}:
            assert answer_at(address, starts, ends) == piece.source
    # Addresses outside every piece are in no range
    covered = [(p.start, p.end) for p in pieces]
    for start, end in spans:
        for address in (start - 1, end + 1):
            if address >= 0 and not any(s <= address <= e for s, e in covered):
                assert answer_at(address, starts, ends) is None


@given(range_sets())
def test_flatten_agrees_with_brute_force(spans: list[tuple[int, int]]) -> None:
    pieces = list(flatten([s for s, _ in spans], [e for _, e in spans]))
    _check(spans, pieces)
    # And with every address of a small space
    if spans and max(e for _, e in spans) <= 63:
        starts, ends = [s for s, _ in spans], [e for _, e in spans]
        by_address = {a: p.source for p in pieces for a in range(p.start, p.end + 1)}
        for address in range(64):
            assert by_address.get(address) == answer_at(address, starts, ends)


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        # nested: the inner range wins inside it, the outer one around it
        ([(0, 100), (10, 20)], [(0, 9, 0), (10, 20, 1), (21, 100, 0)]),
        # partial overlap: the later start wins from its start on
        ([(0, 50), (40, 90)], [(0, 39, 0), (40, 90, 1)]),
        # equal starts: the narrower range wins
        ([(0, 10), (0, 100)], [(0, 10, 0), (11, 100, 1)]),
        # identical ranges: the later row wins
        ([(5, 9), (5, 9)], [(5, 9, 1)]),
        # adjacent ranges stay apart
        ([(0, 9), (10, 19)], [(0, 9, 0), (10, 19, 1)]),
        # a gap stays a gap
        ([(0, 9), (20, 29)], [(0, 9, 0), (20, 29, 1)]),
    ],
)
def test_overlap_rule_cases(spans: list[tuple[int, int]], expected: list[tuple[int, int, int]]) -> None:
    assert list(flatten([s for s, _ in spans], [e for _, e in spans])) == [Piece(*p) for p in expected]


def test_real_file_without_overlaps_flattens_to_itself() -> None:
    ranges = family_ranges(read_tsv(SMALL_FILE))[4]
    pieces = ranges.pieces()
    assert [(p.start, p.end) for p in pieces] == sorted(zip(ranges.starts, ranges.ends, strict=True))


def test_real_overlapping_slice_agrees_with_brute_force() -> None:
    # The first 20,000 rows of the shared IPv4 file hold nested and partial overlaps.
    rows = read_tsv(V4_FILE, 20_000)
    ranges = family_ranges(rows)[4]
    pieces = ranges.pieces()
    nested = sum(1 for p in pieces if (p.start, p.end) != (ranges.starts[p.source], ranges.ends[p.source]))
    assert nested > 0
    sample = pieces[:: max(1, len(pieces) // 300)]
    for piece in sample:
        for address in (piece.start, piece.end):
            assert answer_at(address, ranges.starts, ranges.ends) == piece.source
