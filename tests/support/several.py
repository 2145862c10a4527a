"""Several datasets on generated range sets, for the property tests of combined answers, the overlay and the range
cache: the rows of 2 to 4 datasets whose ranges cross, each stored as a load stores it, the addresses worth asking,
and the brute-force reference over the original rows (``World``) that a shown stretch is checked against
(``check_exact``).

A dataset's answer can only change where one of its rows starts or ends, so a stretch is constant when the answer
is the same at its first address and at every row start or row end + 1 inside it; it is maximal when the answer
differs just outside it (or the address space, or for IPv6 the mapped block ``::ffff:0:0/96``, ends there).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Sequence

from hypothesis import strategies as st

from fencepost.core.space.addresses import BITS, MAPPED_FIRST, MAPPED_LAST, TOP, V4, V6, unmapped
from fencepost.core.storage.keys import PARTITION_BITS
from fencepost.core.versions.build import FamilyRanges
from fencepost.model import VersionInfo
from tests.fakes.ranges import MemoryStore
from tests.reference import answer_of_rows, covered_spans
from tests.strategies import related_span

Row = tuple[int, int, int]  # family, start, end: a range as a file gives it
Point = tuple[int, int]  # family, address as a lookup asks for it


# -- generated datasets ---------------------------------------------------------------------------------------------


def _points(family: int) -> st.SearchStrategy[int]:
    """Anywhere, near a partition boundary, near the ends of the family, or (IPv6) near the mapped block's edges."""
    shift = BITS[family] - PARTITION_BITS[family]
    near_boundary = st.integers(0, (1 << PARTITION_BITS[family]) - 1).flatmap(
        lambda p: st.integers(max(0, (p << shift) - 2), min(TOP[family], (p << shift) + 2))
    )
    edges = [0, 1, TOP[family] - 1, TOP[family]]
    if family == V6:
        edges += [MAPPED_FIRST - 2, MAPPED_FIRST - 1, MAPPED_FIRST, MAPPED_LAST, MAPPED_LAST + 1, MAPPED_LAST + 2]
    return st.one_of(st.integers(0, TOP[family]), near_boundary, st.sampled_from(edges))


@st.composite
def datasets(draw: st.DrawFn, least: int = 2, most: int = 4) -> list[list[Row]]:
    """The rows of 2 to 4 datasets, of one family or both; a row is random, or nested in, overlapping, repeating or
    just beside an earlier row of any dataset (so that the datasets' ranges cross each other)."""
    families = draw(st.sampled_from([(V4,), (V6,), (V4, V6)]))
    earlier: list[Row] = []
    out: list[list[Row]] = []
    for _ in range(draw(st.integers(least, most))):
        rows: list[Row] = []
        for _ in range(draw(st.integers(0, 6))):
            kind = (
                draw(st.sampled_from(["random", "nested", "overlap", "duplicate", "beside"])) if earlier else "random"
            )
            if kind == "random":
                family = draw(st.sampled_from(families))
                start, end = sorted(draw(st.lists(_points(family), min_size=2, max_size=2)))
            else:
                family, low, high = draw(st.sampled_from(earlier))
                start, end = related_span(draw, kind, family, (low, high), [0, 1, 2**20])
            rows.append((family, start, end))
            earlier.append((family, start, end))
        out.append(rows)
    return out


extra_points = st.lists(st.one_of(*(st.tuples(st.just(f), _points(f)) for f in (V4, V6))), max_size=6)


def dataset_name(index: int) -> str:
    return f"d{index}"


def version_number(index: int) -> int:
    return 10 + index


def row_label(row: int) -> str:
    return f"r{row}"


def publish_dataset(store: MemoryStore, index: int, rows: list[Row], *, gaps: bool = True) -> VersionInfo:
    """One dataset stored as a load stores it: IPv6 rows over the mapped block split, their mapped part as IPv4;
    each row labelled with its index, so an answer names the row that gave it."""
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    for row, (family, start, end) in enumerate(rows):
        for part_family, part_start, part_end in unmapped(family, start, end):
            ranges[part_family].add(part_start, part_end, (row_label(row),))
    return store.publish(dataset_name(index), version_number(index), ranges, ["label"], gaps=gaps)


def _looked_up(family: int, address: int) -> Point:
    """An address as a lookup asks for it: an IPv4-mapped IPv6 address as the IPv4 address it carries."""
    if family == V6 and MAPPED_FIRST <= address <= MAPPED_LAST:
        return V4, address - MAPPED_FIRST
    return family, address


def probes(data: list[list[Row]], extra: list[Point]) -> list[Point]:
    """The extra addresses and every row's edges, one address either side included."""
    around = [(f, a) for rows in data for f, s, e in rows for a in (s - 1, s, e, e + 1) if 0 <= a <= TOP[f]]
    return sorted({_looked_up(f, a) for f, a in around + extra})


# -- the brute-force reference ---------------------------------------------------------------------------------------


def _side(family: int, address: int) -> tuple[int, int]:
    """The addresses a lookup of ``(family, address)`` can see: for IPv6, its own side of the mapped block."""
    if family == V4:
        return 0, TOP[V4]
    return (0, MAPPED_FIRST - 1) if address < MAPPED_FIRST else (MAPPED_LAST + 1, TOP[V6])


class World:
    """The rows of every dataset, answered by brute force (cached: the same points are asked again and again)."""

    def __init__(self, data: list[list[Row]]) -> None:
        self.data = data
        self._answers: dict[tuple[int, int, int], int | None] = {}
        self._events: dict[tuple[int, tuple[int, int]], list[int]] = {}

    def answer(self, index: int, family: int, address: int) -> int | None:
        """The row of dataset ``index`` that answers the address (the overlap rule), or None."""
        key = (index, family, address)
        if key not in self._answers:
            self._answers[key] = answer_of_rows(self.data[index], family, address)
        return self._answers[key]

    def answers(self, family: int, address: int, indices: Sequence[int]) -> tuple[int | None, ...]:
        return tuple(self.answer(index, family, address) for index in indices)

    def overlay(self, family: int, address: int) -> tuple[int, int] | None:
        """The first dataset with a row for the address, and that row; None when none has one."""
        for index in range(len(self.data)):
            row = self.answer(index, family, address)
            if row is not None:
                return index, row
        return None

    def events(self, family: int, address: int) -> list[int]:
        """Where any dataset's answer may change, on the address's side: every row's start and end + 1."""
        side = _side(family, address)
        if (family, side) not in self._events:
            points = {
                point
                for rows in self.data
                for start, end in covered_spans(rows, family, address)
                for point in (start, end + 1)
            }
            self._events[(family, side)] = sorted(points)
        return self._events[(family, side)]


def stretch(family: int, shown: dict[str, str]) -> tuple[int, int]:
    first, last = ipaddress.ip_address(shown["start"]), ipaddress.ip_address(shown["end"])
    assert first.version == last.version == family, shown
    return int(first), int(last)


def check_network(family: int, address: int, shown: dict[str, str]) -> None:
    """``network`` is the largest CIDR block that holds the address and lies inside ``start..end``."""
    start, end = stretch(family, shown)
    kind = ipaddress.IPv4Network if family == V4 else ipaddress.IPv6Network
    blocks = (kind((address, length), strict=False) for length in range(BITS[family] + 1))
    expected = next(b for b in blocks if start <= int(b.network_address) and int(b.broadcast_address) <= end)
    assert ipaddress.ip_network(shown["network"]) == expected, (shown, str(expected))


def check_exact(
    world: World,
    family: int,
    address: int,
    shown: dict[str, str],
    answer: Callable[[int, int], object],
    *,
    maximal: bool = True,
) -> None:
    """The stretch ``shown`` holds the address, ``answer`` is the same at every address of it as at the address
    (checked where any dataset's answer may change) and, when ``maximal``, differs just outside it unless the
    address space or the mapped block ends there."""
    here = answer(family, address)

    def same(point: int) -> bool:
        return answer(family, point) == here

    start, end = stretch(family, shown)
    low, high = _side(family, address)
    assert low <= start <= address <= end <= high, (shown, address, "not on the address's side")
    inside = [start, *(point for point in world.events(family, address) if start < point <= end)]
    assert all(same(point) for point in inside), (shown, address, [p for p in inside if not same(p)])
    if maximal:
        assert start == low or not same(start - 1), (shown, address, "could reach lower")
        assert end == high or not same(end + 1), (shown, address, "could reach higher")
    check_network(family, address, shown)
