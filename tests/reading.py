"""Reading range files in memory for tests: what a file's rows collect into, and what its pieces answer."""

from __future__ import annotations

from bisect import bisect_right

from fencepost.core.formats.base import FileSummary, ReadOptions
from fencepost.core.formats.choice import read_ranges
from fencepost.core.space.addresses import parse_boundary
from fencepost.core.versions.build import Collector, ProblemLog


def read_text(
    text: str | bytes, options: ReadOptions | None = None, name: str = "f.csv"
) -> tuple[FileSummary, Collector, ProblemLog]:
    """A file's summary, its collected ranges and its problems."""
    data = text.encode() if isinstance(text, str) else text
    collector, problems = Collector(), ProblemLog()
    summary = read_ranges(name, data.splitlines(keepends=True), options or ReadOptions(), collector, problems)
    return summary, collector, problems


def collected(collector: Collector, family: int) -> list[tuple[int, int, tuple[str, ...]]]:
    """The ranges of one family, in row order, with their metadata."""
    ranges = collector.families[family]
    return list(zip(ranges.starts, ranges.ends, ranges.values, strict=True))


def address(text: str) -> int:
    return parse_boundary(text)[1]


def answer_row(collector: Collector, family: int, value: int, column: int) -> int | None:
    """The row number the flattened pieces give for an address (what a lookup finds), read from one column."""
    ranges = collector.families[family]
    pieces = ranges.pieces()
    index = bisect_right(pieces.starts, value) - 1
    if index < 0 or pieces.ends[index] < value:
        return None
    return int(ranges.values[pieces.sources[index]][column])
