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


_TOP = {4: (1 << 32) - 1, 6: (1 << 128) - 1}


def _side(family: int, address: int) -> tuple[int, int]:
    """The stretch of address space a lookup of ``(family, address)`` can see: an IPv6 address sees its own side
    of the mapped block (an address inside it is looked up as IPv4)."""
    if family == 4:
        return 0, _TOP[4]
    if address < _MAPPED_FIRST:
        return 0, _MAPPED_FIRST - 1
    if address > _MAPPED_LAST:
        return _MAPPED_LAST + 1, _TOP[6]
    raise ValueError("an IPv4-mapped address is looked up as IPv4")


def covered_spans(rows: Sequence[tuple[int, int, int]], family: int, address: int) -> list[tuple[int, int]]:
    """What each row covers as lookups of ``(family, address)`` see it: IPv4 rows and the mapped part of IPv6
    rows for IPv4, the part of IPv6 rows on the address's side of the mapped block for IPv6; empty parts left out."""
    low, high = _side(family, address)
    spans = []
    for row_family, row_start, row_end in rows:
        start, end = row_start, row_end
        if family == 4 and row_family == 6:
            start, end = max(start, _MAPPED_FIRST) - _MAPPED_FIRST, min(end, _MAPPED_LAST) - _MAPPED_FIRST
        elif family != row_family:
            continue
        if max(start, low) <= min(end, high):
            spans.append((max(start, low), min(end, high)))
    return spans


def gap_of_rows(rows: Sequence[tuple[int, int, int]], family: int, address: int) -> tuple[int, int] | None:
    """The whole stretch around ``(family, address)`` that no row covers, by brute force over ``(family, start,
    end)`` rows; None when a row covers the address. It reaches to the covered addresses around it, or to the ends
    of the address space, or (IPv6) to the edges of the mapped block."""
    low, high = _side(family, address)
    for start, end in covered_spans(rows, family, address):
        if start <= address <= end:
            return None
        if end < address:
            low = max(low, end + 1)
        else:
            high = min(high, start - 1)
    return low, high


def check_gap(rows: Sequence[tuple[int, int, int]], family: int, address: int, gap: dict[str, str]) -> None:
    """Assert that an answer's ``gap`` (``start``, ``end``, ``network`` as text) around ``(family, address)`` is
    exact for the rows, and its network the largest CIDR block around the address inside it (``ipaddress``)."""
    first, last = ipaddress.ip_address(gap["start"]), ipaddress.ip_address(gap["end"])
    assert first.version == last.version == family, gap
    start, end = int(first), int(last)
    assert start <= address <= end, (gap, address)
    # Every address of the gap is uncovered.
    spans = covered_spans(rows, family, address)
    assert not [(s, e) for s, e in spans if s <= end and start <= e], gap
    # Just outside it: covered, or the end of the address space, or (IPv6) inside the mapped block.
    below, above = start - 1, end + 1
    assert below < 0 or below == _MAPPED_LAST or any(s <= below <= e for s, e in spans), (gap, "below")
    assert above > _TOP[family] or above == _MAPPED_FIRST or any(s <= above <= e for s, e in spans), (gap, "above")
    if family == 6:
        assert end < _MAPPED_FIRST or start > _MAPPED_LAST, (gap, "reaches into the mapped block")
    network = ipaddress.ip_network(gap["network"])
    assert network.version == family, gap
    kind = ipaddress.IPv6Address if family == 6 else ipaddress.IPv4Address
    assert kind(address) in network, (gap, address)
    assert start <= int(network.network_address) <= int(network.broadcast_address) <= end, gap
    if network.prefixlen > 0:
        wider = network.supernet()
        assert not start <= int(wider.network_address) <= int(wider.broadcast_address) <= end, (gap, "not largest")
