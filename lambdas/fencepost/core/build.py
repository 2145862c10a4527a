"""From validated ranges to what a version stores: flattened pieces, their items, and the directory."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from fencepost.core.items import Item, range_item
from fencepost.core.keys import Directory
from fencepost.core.ranges import Piece, flatten


@dataclass(slots=True)
class FamilyRanges:
    """The ranges of one address family, in row order (the order that breaks ties between identical ranges)."""

    family: int
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    values: list[Sequence[str]] = field(default_factory=list)

    def add(self, start: int, end: int, values: Sequence[str]) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.values.append(values)

    def __len__(self) -> int:
        return len(self.starts)

    def pieces(self) -> list[Piece]:
        return list(flatten(self.starts, self.ends))

    def items(self, dataset: str, version: int, pieces: Sequence[Piece]) -> Iterator[Item]:
        for start, end, source in pieces:
            span = (self.starts[source], self.ends[source])
            yield range_item(dataset, version, self.family, piece=(start, end), source=span, values=self.values[source])

    def directory(self, pieces: Sequence[Piece]) -> Directory:
        return Directory.of_starts(self.family, (piece.start for piece in pieces))
