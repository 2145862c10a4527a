"""From validated rows to what a version stores: flattened pieces, their items, the directory, the problems.

Millions of rows are held at once while a build is planned, so IPv4 boundaries and piece indices live in typed
arrays (4 bytes each instead of a Python int and its pointer); IPv6 boundaries, which need 128 bits, stay ints.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import overload

from fencepost.core.formats.problems import Problem
from fencepost.core.space.addresses import FAMILIES, V4
from fencepost.core.space.gaps import gap_end
from fencepost.core.space.ranges import Piece, flatten
from fencepost.core.storage.items import Item, ItemTooLarge, oversized_metadata, range_item
from fencepost.core.storage.keys import Directory

assert array("I").itemsize >= 4, "typed arrays of IPv4 addresses need 32-bit unsigned ints"

# The metadata of a row that means "no data" (a folder's ``gap_when``): it takes part in the overlap rule like any
# range, but the pieces it answers are not stored, so their addresses answer NOT_FOUND. Compared by identity.
HOLE: tuple[str, ...] = ("\x00no data",)


def _addresses(family: int) -> MutableSequence[int]:
    return array("I") if family == V4 else []


@dataclass(slots=True)
class Pieces(Sequence[Piece]):
    """Flattened pieces as parallel sequences: ``starts[k]``, ``ends[k]``, and ``sources[k]``, the row answering."""

    family: int
    starts: MutableSequence[int]
    ends: MutableSequence[int]
    sources: MutableSequence[int]

    @classmethod
    def empty(cls, family: int) -> Pieces:
        return cls(family, _addresses(family), _addresses(family), array("I"))

    def append(self, start: int, end: int, source: int) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.sources.append(source)

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, index: int) -> Piece: ...
    @overload
    def __getitem__(self, index: slice) -> list[Piece]: ...
    def __getitem__(self, index: int | slice) -> Piece | list[Piece]:
        if isinstance(index, slice):
            return list(map(Piece, self.starts[index], self.ends[index], self.sources[index]))
        return Piece(self.starts[index], self.ends[index], self.sources[index])

    def __iter__(self) -> Iterator[Piece]:
        return map(Piece, self.starts, self.ends, self.sources)

    def gap_end(self, index: int) -> int | None:
        """The last address of the gap after piece ``index`` (pieces are in address order); None when none."""
        following = self.starts[index + 1] if index + 1 < len(self) else None
        return gap_end(self.family, self.ends[index], following)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pieces) and (self.family, list(self)) == (other.family, list(other))

    __hash__ = None  # type: ignore[assignment]


@dataclass(slots=True)
class FamilyRanges:
    """The ranges of one address family, in row order (the order that breaks ties between identical ranges)."""

    family: int
    starts: MutableSequence[int] = field(init=False)
    ends: MutableSequence[int] = field(init=False)
    values: list[tuple[str, ...]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.starts, self.ends = _addresses(self.family), _addresses(self.family)

    def add(self, start: int, end: int, values: tuple[str, ...]) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.values.append(values)

    def __len__(self) -> int:
        return len(self.starts)

    def pieces(self, *, merge_neighbours: bool = False) -> Pieces:
        """The flattened pieces; with ``merge_neighbours``, touching pieces with equal metadata become one.

        A merged piece answers for a range that no file row gave, so it gets a row of its own (appended here),
        and its answers report the merged extent as their range.
        """
        pieces = Pieces.empty(self.family)
        values = self.values
        if not merge_neighbours:
            for start, end, source in flatten(self.starts, self.ends):
                if values[source] is not HOLE:
                    pieces.append(start, end, source)
            return pieces
        merged: list[Piece] = []
        for piece in flatten(self.starts, self.ends):
            if values[piece.source] is HOLE:
                merged.append(piece)  # never merged with a neighbour (HOLE equals only itself), never stored
                continue
            last = merged[-1] if merged else None
            if (
                last
                and last.end + 1 == piece.start
                and values[last.source] is not HOLE
                and values[last.source] == values[piece.source]
            ):
                merged[-1] = Piece(last.start, piece.end, last.source)
            else:
                merged.append(piece)
        for start, end, source in merged:
            if values[source] is HOLE:
                continue
            if (start, end) == (self.starts[source], self.ends[source]):
                pieces.append(start, end, source)
            else:
                self.add(start, end, self.values[source])
                pieces.append(start, end, len(self) - 1)
        return pieces

    def item(self, dataset: str, version: int, piece: Piece, gap: int | None = None) -> Item:
        """The item of a piece; ``gap`` is the last address of the gap after it (``Pieces.gap_end``), if any."""
        start, end, source = piece
        span = (self.starts[source], self.ends[source])
        values = self.values[source]
        return range_item(dataset, version, self.family, piece=(start, end), source=span, values=values, gap_end=gap)

    def items(self, dataset: str, version: int, pieces: Pieces) -> Iterator[Item]:
        for index, piece in enumerate(pieces):
            yield self.item(dataset, version, piece, pieces.gap_end(index))

    def directory(self, pieces: Pieces | Sequence[Piece]) -> Directory:
        starts = pieces.starts if isinstance(pieces, Pieces) else [piece.start for piece in pieces]
        return Directory.of_starts(self.family, starts)


class Collector:
    """Ranges of every family as rows arrive; equal metadata tuples are stored once (files repeat them a lot)."""

    def __init__(self) -> None:
        self.families = {family: FamilyRanges(family) for family in FAMILIES}
        self._values: dict[tuple[str, ...], tuple[str, ...]] = {}

    def add(self, family: int, start: int, end: int, values: tuple[str, ...]) -> None:
        self.families[family].add(start, end, self._values.setdefault(values, values))

    def __len__(self) -> int:
        return sum(len(ranges) for ranges in self.families.values())

    def remap(self, change: Callable[[tuple[str, ...]], tuple[str, ...]]) -> None:
        """Replace every row's metadata by ``change(metadata)``, computed once per distinct tuple. Raises
        ``ItemTooLarge`` when a changed row's metadata would no longer fit its item."""
        changed = {id(values): change(values) for values in self._values.values()}
        for values in changed.values():
            if values is not HOLE and (size := oversized_metadata(values)) is not None:
                raise ItemTooLarge(f"a row's metadata would take {size:,} bytes: a 400 KB DynamoDB item cannot hold it")
        changed[id(HOLE)] = HOLE  # a hole stays one
        for ranges in self.families.values():
            ranges.values = [changed[id(values)] for values in ranges.values]
        self._values = {new: new for new in changed.values() if new is not HOLE}


class ProblemLog:
    """Every problem counted; the first ``keep`` kept for the report. ``count`` counts invalid rows (what
    ``max_invalid_rows`` allows); a warning (``warn``) is reported first and fails nothing."""

    def __init__(self, keep: int = 10_000) -> None:
        self.keep = keep
        self.kept: list[Problem] = []
        self.count = 0
        self.warnings = 0

    def add(self, problem: Problem) -> None:
        self.count += 1
        if len(self.kept) < self.keep:
            self.kept.append(problem)

    def warn(self, problem: Problem) -> None:
        self.warnings += 1
        self.kept.insert(0, problem)
        del self.kept[self.keep :]

    @property
    def total(self) -> int:
        return self.count + self.warnings
