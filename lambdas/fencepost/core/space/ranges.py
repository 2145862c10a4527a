"""The overlap rule and the flattening that applies it.

At every address the answer is the containing range with the greatest start; among equal starts the narrower
range; among identical ranges the later row. (Nested, more specific ranges win, as in routing.)

That rule is a total order on ranges: sort by ``(start, -end, row)`` and a later range beats an earlier one
wherever both contain the address. Flattening walks the ranges in that order with a stack of the ranges still
open, and emits the non-overlapping pieces in which one range is the answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple


class Piece(NamedTuple):
    """A stretch of address space ``[start, end]`` answered by the range at ``source`` (its row index)."""

    start: int
    end: int
    source: int


def priority(start: int, end: int, row: int) -> tuple[int, int, int]:
    """The overlap rule as a sort key: of two ranges containing an address, the greater key answers."""
    return start, -end, row


def flatten(starts: Sequence[int], ends: Sequence[int]) -> Iterator[Piece]:
    """Non-overlapping pieces, in address order, for ranges given as parallel sequences in row order.

    ``starts[i] <= ends[i]`` is the caller's promise. Adjacent pieces of different ranges stay apart.
    """
    order = _rule_order(starts, ends)
    open_rows: list[int] = []  # top is the answer at ``cursor``; entries below may have ended already
    cursor = 0  # the first address not yet emitted
    for row in order:
        start = starts[row]
        yield from _emit_until(open_rows, ends, cursor, start)
        cursor = start
        open_rows.append(row)
    yield from _emit_until(open_rows, ends, cursor, None)


def _rule_order(starts: Sequence[int], ends: Sequence[int]) -> Sequence[int]:
    """Row indices sorted by the overlap rule. Files are usually in that order already: then nothing is sorted.

    Otherwise a stable sort on one integer per row, ``start`` then the complement of ``end`` (rows of identical
    ranges keep their file order), holds far less memory than a tuple per row.
    """
    count = len(starts)
    if all(
        starts[i] < starts[i + 1] or (starts[i] == starts[i + 1] and ends[i] >= ends[i + 1]) for i in range(count - 1)
    ):
        return range(count)
    width = max(ends, default=0).bit_length()
    top = (1 << width) - 1
    return sorted(range(count), key=lambda i: (starts[i] << width) | (top - ends[i]))


def _emit_until(open_rows: list[int], ends: Sequence[int], cursor: int, limit: int | None) -> Iterator[Piece]:
    """Emit pieces of the open ranges from ``cursor`` up to ``limit - 1`` (or to the end when ``limit`` is None)."""
    while open_rows and (limit is None or cursor < limit):
        top = open_rows[-1]
        end = ends[top]
        if end < cursor:
            open_rows.pop()
            continue
        stop = end if limit is None or end < limit else limit - 1
        yield Piece(cursor, stop, top)
        cursor = stop + 1
        if stop == end:
            open_rows.pop()


def answer_at(address: int, starts: Sequence[int], ends: Sequence[int]) -> int | None:
    """The overlap rule by brute force: the row answering ``address``, or None. A reference for tests."""
    best: int | None = None
    for row, (start, end) in enumerate(zip(starts, ends, strict=True)):
        if start <= address <= end and (
            best is None or priority(start, end, row) > priority(starts[best], ends[best], best)
        ):
            best = row
    return best
