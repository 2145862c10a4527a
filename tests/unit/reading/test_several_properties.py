"""Several datasets in one lookup, on generated range sets: the combined answer's ``match`` and the overlay's
narrowed ``match`` and NOT_FOUND ``gap`` must each be exactly the stretch in which the answer stays the same,
checked by brute force over the original rows of every dataset (``tests.reference``), with the largest CIDR block
around the address checked with ``ipaddress``.

A dataset's answer can only change where one of its rows starts or ends, so a stretch is constant when the answer
is the same at its first address and at every row start or row end + 1 inside it; it is maximal when the answer
differs just outside it (or the address space, or for IPv6 the mapped block ``::ffff:0:0/96``, ends there).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.core.space.addresses import BITS, MAPPED_FIRST, MAPPED_LAST, TOP, V4, V6, unmapped
from fencepost.core.storage.keys import PARTITION_BITS
from fencepost.core.versions.build import FamilyRanges
from fencepost.errors import NotFound, UnknownDataset
from fencepost.model import VersionInfo
from fencepost.reading import answers
from fencepost.reading.answers import Answer, Miss
from fencepost.reading.lookup import Lookup
from tests.fakes.ranges import MemoryStore
from tests.reference import answer_of_rows, check_gap, covered_spans
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


_extra_points = st.lists(st.one_of(*(st.tuples(st.just(f), _points(f)) for f in (V4, V6))), max_size=6)


def _name(index: int) -> str:
    return f"d{index}"


def _version(index: int) -> int:
    return 10 + index


def _label(row: int) -> str:
    return f"r{row}"


def _publish(store: MemoryStore, index: int, rows: list[Row], *, gaps: bool = True) -> VersionInfo:
    """One dataset stored as a load stores it: IPv6 rows over the mapped block split, their mapped part as IPv4;
    each row labelled with its index, so an answer names the row that gave it."""
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    for row, (family, start, end) in enumerate(rows):
        for part_family, part_start, part_end in unmapped(family, start, end):
            ranges[part_family].add(part_start, part_end, (_label(row),))
    return store.publish(_name(index), _version(index), ranges, ["label"], gaps=gaps)


def _looked_up(family: int, address: int) -> Point:
    """An address as a lookup asks for it: an IPv4-mapped IPv6 address as the IPv4 address it carries."""
    if family == V6 and MAPPED_FIRST <= address <= MAPPED_LAST:
        return V4, address - MAPPED_FIRST
    return family, address


def _probes(data: list[list[Row]], extra: list[Point]) -> list[Point]:
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


def _stretch(family: int, shown: dict[str, str]) -> tuple[int, int]:
    first, last = ipaddress.ip_address(shown["start"]), ipaddress.ip_address(shown["end"])
    assert first.version == last.version == family, shown
    return int(first), int(last)


def check_network(family: int, address: int, shown: dict[str, str]) -> None:
    """``network`` is the largest CIDR block that holds the address and lies inside ``start..end``."""
    start, end = _stretch(family, shown)
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

    start, end = _stretch(family, shown)
    low, high = _side(family, address)
    assert low <= start <= address <= end <= high, (shown, address, "not on the address's side")
    inside = [start, *(point for point in world.events(family, address) if start < point <= end)]
    assert all(same(point) for point in inside), (shown, address, [p for p in inside if not same(p)])
    if maximal:
        assert start == low or not same(start - 1), (shown, address, "could reach lower")
        assert end == high or not same(end + 1), (shown, address, "could reach higher")
    check_network(family, address, shown)


def _without_reserved(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "reserved"}


def _reserved(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key == "reserved"}


def _check_element(world: World, index: int, point: Point, outcome: Answer | Miss, element: dict[str, Any]) -> None:
    """One dataset's part of a combined answer is its single-dataset answer without ``reserved``, and right."""
    family, address = point
    expected = world.answer(index, family, address)
    if expected is None:
        assert isinstance(outcome, Miss), (index, family, address)
        assert element == {**_without_reserved(outcome.details()), "error": NotFound(outcome.message()).body()}
        assert element["error"]["code"] == "NOT_FOUND"
        if outcome.info.gaps:
            check_gap(world.data[index], family, address, element["gap"])
        else:
            assert "gap" not in element
    else:
        assert isinstance(outcome, Answer), (index, family, address)
        assert element == _without_reserved(outcome.body())
        assert element["data"] == {"label": _label(expected)}
    assert (element["dataset"], element["version"]) == (_name(index), _version(index))


# -- the combined answer ---------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(data=datasets(), extra=_extra_points, unknown=st.one_of(st.none(), st.integers(0, 3)))
def test_the_combined_match_is_exactly_the_stretch_where_every_answer_holds(
    data: list[list[Row]], extra: list[Point], unknown: int | None
) -> None:
    # Given 2 to 4 datasets of crossing ranges, perhaps one of them not loaded
    store = MemoryStore()
    infos = [_publish(store, index, rows) for index, rows in enumerate(data)]
    lookup = Lookup(store, ttl=60)
    assert [lookup.live(_name(index)) for index in range(len(data))] == infos
    if unknown is not None and unknown >= len(data):
        unknown = None
    known = [index for index in range(len(data)) if index != unknown]
    world = World(data)
    for family, address in _probes(data, extra):
        # When every dataset's answer for the address is combined
        outcomes: list[answers.Outcome] = [lookup.answer(info, family, address) for info in infos]
        if unknown is not None:
            outcomes[unknown] = answers.Unknown(_name(unknown), UnknownDataset(f"no dataset named {_name(unknown)!r}"))
        body = answers.combined(family, address, outcomes)
        # Then each element is that dataset's own answer
        assert len(body["answers"]) == len(data)
        for index, (outcome, element) in enumerate(zip(outcomes, body["answers"], strict=True)):
            if isinstance(outcome, answers.Unknown):
                assert element == {
                    "ip": body["ip"],
                    "dataset": _name(index),
                    "error": {"code": "UNKNOWN_DATASET", "message": f"no dataset named {_name(index)!r}"},
                }
            else:
                _check_element(world, index, (family, address), outcome, element)
        # And the match is exactly the stretch in which every known dataset gives the same answer
        check_exact(world, family, address, body["match"], lambda f, p: world.answers(f, p, known))
        # And reserved is given once, at the top
        first = outcomes[known[0]]
        assert not isinstance(first, answers.Unknown)
        single = first.body() if isinstance(first, Answer) else first.details()
        assert _reserved(body) == _reserved(single)
        assert list(body) == ["ip", "match", *_reserved(body), "answers"]


def test_an_unknown_dataset_leaves_the_match_to_the_known_ones() -> None:
    rows: list[list[Row]] = [[(V4, 100, 199)], [(V4, 150, 300)], [(V4, 120, 130)]]
    store = MemoryStore()
    infos = [_publish(store, index, data) for index, data in enumerate(rows)]
    lookup = Lookup(store, ttl=60)
    outcomes: list[answers.Outcome] = [lookup.answer(info, V4, 160) for info in infos]
    outcomes[0] = answers.Unknown("d0", UnknownDataset("no dataset named 'd0' is loaded"))
    body = answers.combined(V4, 160, outcomes)
    # d1's piece 150..300 and d2's gap 131..(top) meet in 150..300: d0's 100..199 does not count
    assert body["match"] == {"start": "0.0.0.150", "end": "0.0.1.44", "network": "0.0.0.160/27"}
    assert body["answers"][0] == {
        "ip": "0.0.0.160",
        "dataset": "d0",
        "error": {"code": "UNKNOWN_DATASET", "message": "no dataset named 'd0' is loaded"},
    }
    # With every dataset unknown, there is no match at all
    nothing = answers.combined(V4, 160, [answers.Unknown("d0", UnknownDataset("gone"))])
    assert "match" not in nothing


# -- the overlay ---------------------------------------------------------------------------------------------------
