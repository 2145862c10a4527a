"""From validated rows to what a version stores: flattened pieces, their items, the directory, the problems."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from fencepost.core.addresses import FAMILIES
from fencepost.core.formats import Problem
from fencepost.core.items import Item, range_item
from fencepost.core.keys import Directory
from fencepost.core.ranges import Piece, flatten


@dataclass(slots=True)
class FamilyRanges:
    """The ranges of one address family, in row order (the order that breaks ties between identical ranges)."""

    family: int
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    values: list[tuple[str, ...]] = field(default_factory=list)

    def add(self, start: int, end: int, values: tuple[str, ...]) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.values.append(values)

    def __len__(self) -> int:
        return len(self.starts)

    def pieces(self, *, merge_neighbours: bool = False) -> list[Piece]:
        """The flattened pieces; with ``merge_neighbours``, touching pieces with equal metadata become one.

        A merged piece answers for a range that no file row gave, so it gets a row of its own (appended here),
        and its answers report the merged extent as their range.
        """
        pieces = list(flatten(self.starts, self.ends))
        if not merge_neighbours:
            return pieces
        merged: list[Piece] = []
        for piece in pieces:
            last = merged[-1] if merged else None
            if last and last.end + 1 == piece.start and self.values[last.source] == self.values[piece.source]:
                merged[-1] = Piece(last.start, piece.end, last.source)
            else:
                merged.append(piece)
        for index, piece in enumerate(merged):
            if (piece.start, piece.end) != (self.starts[piece.source], self.ends[piece.source]):
                self.add(piece.start, piece.end, self.values[piece.source])
                merged[index] = Piece(piece.start, piece.end, len(self) - 1)
        return merged

    def item(self, dataset: str, version: int, piece: Piece) -> Item:
        start, end, source = piece
        span = (self.starts[source], self.ends[source])
        return range_item(dataset, version, self.family, piece=(start, end), source=span, values=self.values[source])

    def items(self, dataset: str, version: int, pieces: Sequence[Piece]) -> Iterator[Item]:
        for piece in pieces:
            yield self.item(dataset, version, piece)

    def directory(self, pieces: Sequence[Piece]) -> Directory:
        return Directory.of_starts(self.family, (piece.start for piece in pieces))


class Collector:
    """Ranges of every family as rows arrive; equal metadata tuples are stored once (files repeat them a lot)."""

    def __init__(self) -> None:
        self.families = {family: FamilyRanges(family) for family in FAMILIES}
        self._values: dict[tuple[str, ...], tuple[str, ...]] = {}

    def add(self, family: int, start: int, end: int, values: tuple[str, ...]) -> None:
        self.families[family].add(start, end, self._values.setdefault(values, values))

    def __len__(self) -> int:
        return sum(len(ranges) for ranges in self.families.values())


class ProblemLog:
    """Every problem counted; the first ``keep`` kept for the report."""

    def __init__(self, keep: int = 10_000) -> None:
        self.keep = keep
        self.kept: list[Problem] = []
        self.count = 0

    def add(self, problem: Problem) -> None:
        self.count += 1
        if len(self.kept) < self.keep:
            self.kept.append(problem)

    def first(self, n: int) -> list[dict[str, object]]:
        return [problem._asdict() for problem in self.kept[:n]]
