"""An independent reference for the overlap rule: brute force over the original rows, vectorised with numpy."""

from __future__ import annotations

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
