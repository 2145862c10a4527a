"""Gaps: the stretches of address space no range covers, as a NOT_FOUND answer reports them.

Each stored piece that is followed by a gap carries the gap's last address (``g``): the loader knows it when
flattening, since the next piece starts one past it (or the family's space ends). A lookup that misses has read
the piece below the address, so the gap around the address is ``[piece end + 1, g]``, with no second read. Below
a family's first piece, the version's directory gives the gap's end.

IPv4-mapped IPv6 addresses (``::ffff:0:0/96``) are answered as IPv4, and no IPv6 piece lies in that block, so an
IPv6 gap is cut at the block's edges: it is the stretch on the address's own side of it. A version's aliases
(``core.space.aliases``) are answered as IPv4 too, and cut IPv6 gaps the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from fencepost.core.space.addresses import BITS, MAPPED_FIRST, MAPPED_LAST, TOP, V4, V6
from fencepost.core.space.aliases import Alias, clip_at_aliases

Stretch = tuple[int, int]  # first and last address, inclusive
_MAPPED: Alias = (MAPPED_FIRST, BITS[V6] - BITS[V4])  # ::ffff:0:0/96, as a prefix to stop at


def gap_end(family: int, end: int, next_start: int | None) -> int | None:
    """The last address of the gap after a piece ending at ``end``, the next piece starting at ``next_start``
    (None: it is the family's last piece); None when no gap follows."""
    following = TOP[family] + 1 if next_start is None else next_start
    return following - 1 if following > end + 1 else None


def gap_below(family: int, address: int, first_start: int | None, aliases: Sequence[Alias] = ()) -> Stretch:
    """The gap around an address below every piece of its family (``first_start`` None: the family has none)."""
    end = TOP[family] if first_start is None else first_start - 1
    if not 0 <= address <= end:
        raise ValueError(f"address {address} is not below the first piece at {first_start}")
    return clip(family, address, (0, end), aliases)


def gap_after(family: int, address: int, piece_end: int, gap_end: int, aliases: Sequence[Alias] = ()) -> Stretch:
    """The gap around an address past the end of the piece below it, which stored its gap's last address."""
    if not piece_end < address <= gap_end:
        raise ValueError(f"address {address} is not in the gap {piece_end + 1}..{gap_end}")
    return clip(family, address, (piece_end + 1, gap_end), aliases)


def clip(family: int, address: int, stretch: Stretch, aliases: Sequence[Alias] = ()) -> Stretch:
    """An IPv6 stretch cut at the IPv4-mapped block and at the version's aliases (``core.space.aliases``), on the side
    of ``address`` (which is in none of them): addresses there are answered as IPv4."""
    if family != V6:
        return stretch
    if MAPPED_FIRST <= address <= MAPPED_LAST:
        raise ValueError("an IPv4-mapped address is looked up as IPv4")
    return clip_at_aliases((_MAPPED, *aliases), address, stretch)


def intersect(stretches: Sequence[Stretch]) -> Stretch:
    """The stretch common to every stretch given (they all hold the same address, so it is never empty)."""
    start = max(first for first, _ in stretches)
    end = min(last for _, last in stretches)
    if start > end:
        raise ValueError("the stretches have no address in common")
    return start, end
