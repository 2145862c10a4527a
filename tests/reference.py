"""An independent reference for the overlap rule: brute force over the original rows, vectorised with numpy."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

import numpy as np

_LOW = (1 << 64) - 1


def _split(values: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.array([v >> 64 for v in values], dtype=np.uint64),
        np.array([v & _LOW for v in values], dtype=np.uint64),
    )


class Reference:
    """``answer(address)`` is the row that the overlap rule picks among all rows containing the address."""

    def __init__(self, starts: Sequence[int], ends: Sequence[int]) -> None:
        self.starts, self.ends = list(starts), list(ends)
        self._start_hi, self._start_lo = _split(self.starts)
        self._end_hi, self._end_lo = _split(self.ends)

    def answer(self, address: int) -> int | None:
        hi, lo = np.uint64(address >> 64), np.uint64(address & _LOW)
        after_start = (self._start_hi < hi) | ((self._start_hi == hi) & (self._start_lo <= lo))
        before_end = (self._end_hi > hi) | ((self._end_hi == hi) & (self._end_lo >= lo))
        rows = np.nonzero(after_start & before_end)[0]
        if rows.size == 0:
            return None
        # Greatest start, then narrowest, then latest row.
        return int(max(rows, key=lambda row: (self.starts[row], -self.ends[row], row)))


# ::ffff:0:0/96, written out here rather than taken from the loader, so that the reference stays independent.
_MAPPED_FIRST = 0xFFFF << 32
_MAPPED_LAST = _MAPPED_FIRST + (1 << 32) - 1


def answer_of_rows(rows: Sequence[tuple[int, int, int]], family: int, address: int) -> int | None:
    """The row whose range answers ``(family, address)`` as lookups parse it, by brute force over ``(family,
    start, end)`` rows in file order.

    A lookup of an IPv4-mapped address asks for the IPv4 address, so an IPv6 row covering mapped addresses
    answers IPv4 lookups there, with the overlap rule applied to the part of the row inside the mapped block; an
    IPv6 lookup is answered by the part of a row on its side of the block.
    """
    best: tuple[int, int, int] | None = None
    for row, (row_family, row_start, row_end) in enumerate(rows):
        start, end = row_start, row_end
        if family == 4 and row_family == 6:  # the row's part inside the mapped block, as IPv4
            start, end = max(start, _MAPPED_FIRST) - _MAPPED_FIRST, min(end, _MAPPED_LAST) - _MAPPED_FIRST
        elif family == 6 and row_family == 6:  # the row's part on the address's side of the mapped block
            if address < _MAPPED_FIRST:
                end = min(end, _MAPPED_FIRST - 1)
            else:
                start = max(start, _MAPPED_LAST + 1)
        elif family != row_family:
            continue
        if start <= address <= end and (best is None or (start, -end, row) > best):
            best = (start, -end, row)
    return None if best is None else best[2]


def range_span(family: int, start: int, end: int) -> dict[str, object]:
    """A range as answers give it: its ends as text and, from the standard library, its shortest CIDR cover."""
    kind = ipaddress.IPv6Address if family == 6 else ipaddress.IPv4Address
    first, last = kind(start), kind(end)
    return {
        "start": str(first),
        "end": str(last),
        "cidrs": [str(block) for block in ipaddress.summarize_address_range(first, last)],
    }
