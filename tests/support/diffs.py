"""Versions to compare, for the tests of diffs: a version's pieces file built from rows as a load builds it, and the
brute force the property tests check diffs against (random rows in a window around a partition boundary of each
family, the answer at any address found from the rows themselves with ``tests.reference.answer_of_rows``); and two
small files, a version and its next release."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from hypothesis import strategies as st

from fencepost.core.space.addresses import FAMILIES, MAPPED_FIRST, MAPPED_LAST, TOP, V4, V6, unmapped
from fencepost.core.storage.keys import PARTITION_BITS
from fencepost.core.storage.piece_files import PieceLine, answer_hash, parse_piece_line, piece_lines
from fencepost.core.versions.build import HOLE, FamilyRanges
from fencepost.core.versions.diffs import Change
from tests.reference import answer_of_rows

Row = tuple[int, int, int, tuple[str, ...]]  # family, start, end, metadata: a range as a file gives it


def version(rows: Sequence[Row]) -> list[PieceLine]:
    """The pieces file of a version built from ``rows`` as a load builds it, read back line by line."""
    ranges = {family: FamilyRanges(family) for family in FAMILIES}
    for family, start, end, values in rows:
        for part_family, part_start, part_end in unmapped(family, start, end):
            ranges[part_family].add(part_start, part_end, values)
    pieces = {family: ranges[family].pieces() for family in FAMILIES}
    return [parse_piece_line(line) for line in piece_lines(ranges, pieces)]


_WIDTH = 150  # each family's window reaches this far either side of its centre, a partition boundary
_LABELS = [("a",), ("b",), ("a", "b"), HOLE]  # few labels: equal answers are frequent; HOLE answers NOT_FOUND


def centre(family: int, partition: int) -> int:
    return partition << (128 - PARTITION_BITS[V6] if family == V6 else 32 - PARTITION_BITS[V4])


@st.composite
def random_rows(draw: st.DrawFn, centres: dict[int, int]) -> list[Row]:
    """Rows in each family's window, a few reaching to an end of the address space (IPv6 ones over the mapped
    block: their middle part is IPv4), with few labels; ranges repeated, nested and overlapping by chance."""
    rows: list[Row] = []
    for _ in range(draw(st.integers(0, 10))):
        family = draw(st.sampled_from(FAMILIES))
        window = st.integers(centres[family] - _WIDTH, centres[family] + _WIDTH)
        bound = st.one_of(window, window, window, st.sampled_from([0, TOP[family]]))
        start, end = sorted([draw(bound), draw(bound)])
        repeat: bool = draw(st.booleans())
        if rows and repeat:
            family, start, end, _ = draw(st.sampled_from(rows))  # the same range again, perhaps other data
        rows.append((family, start, end, draw(st.sampled_from(_LABELS))))
    return rows


def _seen(row: Row, family: int, address: int) -> tuple[int, int]:
    """The part of ``row`` that answers ``(family, address)``: its own range, or for an IPv6 row its mapped part
    (as IPv4) or its part on the address's side of the mapped block, as a load stores it."""
    row_family, start, end, _ = row
    if family == V4 and row_family == V6:
        return max(start, MAPPED_FIRST) - MAPPED_FIRST, min(end, MAPPED_LAST) - MAPPED_FIRST
    if family == V6 and address < MAPPED_FIRST:
        return start, min(end, MAPPED_FIRST - 1)
    if family == V6:
        return max(start, MAPPED_LAST + 1), end
    return start, end


def brute_force_answer(rows: Sequence[Row], family: int, address: int) -> str | None:
    """The hash of the answer at ``(family, address)`` by brute force over the rows; None: NOT_FOUND."""
    row = answer_of_rows([(f, s, e) for f, s, e, _ in rows], family, address)
    if row is None or rows[row][3] is HOLE:
        return None
    return answer_hash(rows[row][3], _seen(rows[row], family, address))


def universe(family: int, centre: int) -> Iterator[tuple[int, int]]:
    """``(address, weight)``: every address of the window, and one address standing for each stretch outside it
    (none of whose addresses is a row's bound, so all answer alike), weighted by the stretch's length. IPv6 leaves
    out the mapped block, whose addresses are looked up as IPv4."""
    low, high = centre - _WIDTH, centre + _WIDTH
    yield from ((address, 1) for address in range(low, high + 1))
    outside = [(0, 0), (1, low - 1), (high + 1, TOP[family] - 1), (TOP[family], TOP[family])]
    if family == V6:
        outside[1:2] = [(1, MAPPED_FIRST - 1), (MAPPED_LAST + 1, low - 1)]
    yield from ((first, last - first + 1) for first, last in outside)


def changes_at(changes: list[Change], family: int, address: int) -> tuple[str | None, str | None] | None:
    found = [(c.old_hash, c.new_hash) for c in changes if c.family == family and c.start <= address <= c.end]
    assert len(found) <= 1
    return found[0] if found else None


V1 = "start,end,country\n1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.1.255,CN\n2001:db8::,2001:db8::ffff,ZZ\n"
# 1.0.1.0/24 now answers JP; 2.0.0.0/24 is new; the IPv6 range is gone
V2 = "start,end,country\n1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.1.255,JP\n2.0.0.0,2.0.0.255,FR\n"
