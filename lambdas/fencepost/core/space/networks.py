"""CIDR blocks of ranges: the largest block around an address, and the fewest blocks that make up a range.

Addresses are ``(family, integer)`` as in ``fencepost.core.space.addresses``; blocks are written ``<address>/<length>``
with the address in canonical text (dotted IPv4, RFC 5952 IPv6).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fencepost.core.space.addresses import BITS, TOP, format_address


def _check(family: int, start: int, end: int) -> int:
    if family not in BITS:
        raise ValueError(f"unknown address family {family!r}")
    if not 0 <= start <= end <= TOP[family]:
        raise ValueError(f"{start}..{end} is not a range of IPv{family} addresses")
    return BITS[family]


def block_text(family: int, first: int, length: int) -> str:
    """``first/length`` in canonical text."""
    return f"{format_address(family, first)}/{length}"


def largest_block(family: int, start: int, end: int, address: int) -> tuple[int, int]:
    """``(first, length)`` of the largest CIDR block that contains ``address`` and lies inside ``start..end``.

    Blocks that contain an address are nested, so the largest one inside the range is unique.
    """
    bits = _check(family, start, end)
    if not start <= address <= end:
        raise ValueError(f"address {address} is outside {start}..{end}")
    for length in range(bits + 1):
        host = bits - length
        first = (address >> host) << host
        if first >= start and first | ((1 << host) - 1) <= end:
            return first, length
    raise AssertionError("unreachable: the single-address block always fits")  # pragma: no cover


def network(family: int, start: int, end: int, address: int) -> str:
    """The largest CIDR block that contains ``address`` and lies inside ``start..end``, as text."""
    first, length = largest_block(family, start, end, address)
    return block_text(family, first, length)


def range_blocks(family: int, start: int, end: int) -> list[tuple[int, int]]:
    """``(first, length)`` of the fewest CIDR blocks that together are exactly ``start..end``, in address order.

    Each block is the largest that starts where the previous one ended and is aligned there; this greedy cover is
    the shortest (at most ``2 * bits - 2`` blocks).
    """
    bits = _check(family, start, end)
    blocks: list[tuple[int, int]] = []
    first = start
    while first <= end:
        aligned = bits if first == 0 else (first & -first).bit_length() - 1
        fitting = (end - first + 1).bit_length() - 1
        host = min(aligned, fitting)
        blocks.append((first, bits - host))
        first += 1 << host
    return blocks


def cidrs(family: int, start: int, end: int) -> list[str]:
    """The fewest CIDR blocks that together are exactly ``start..end``, as text, in address order."""
    return [block_text(family, first, length) for first, length in range_blocks(family, start, end)]


def touches(run: Sequence[int], family: int, start: int) -> bool:
    """Whether a range of ``family`` starting at ``start`` begins right after ``run`` (``[family, first, last]``)."""
    return run[0] == family and run[2] + 1 == start


def merge_touching(runs: Iterable[Sequence[int]]) -> list[list[int]]:
    """Runs ``[family, first, last, ...]`` in address order, each that begins right after the one before it merged
    into that one (which keeps its other fields)."""
    merged: list[list[int]] = []
    for run in runs:
        if merged and touches(merged[-1], run[0], run[1]):
            merged[-1][2] = run[2]
        else:
            merged.append(list(run))
    return merged
