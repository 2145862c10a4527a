"""What a sink should hold: a version's ranges as the fewest CIDR networks (touching ranges merged first, as
``format=cidr`` pages of ``GET /ranges?where=`` do), IPv4 and IPv6 apart, split into sets of at most N, and the
difference between what a set holds and what it should.

WAF takes every CIDR block but ``/0``: a version that covers a whole address space is pushed as its two halves.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from fencepost.core.space.addresses import BITS, FAMILIES
from fencepost.core.space.networks import block_text, merge_touching, range_blocks
from fencepost.core.versions.where_clause import Where

Piece = tuple[int, int, int, Sequence[str]]  # family, first, last, values
MAX_CHANGES: Final = 100  # entries one ModifyManagedPrefixList call may add, and as many remove


class SinkError(ValueError):
    """A version that cannot be pushed as the sink's setting asks (a column it lacks, more sets than allowed)."""


def matching(pieces: Iterable[Piece], columns: Sequence[str], where: Where | None) -> Iterator[Piece]:
    """The pieces whose column holds the value (every piece without ``where``)."""
    if where is None:
        yield from pieces
        return
    if where.column not in columns:
        raise SinkError(
            f"where names a column the version does not have: {where.column!r}; its columns are {list(columns)}"
        )
    index = columns.index(where.column)
    yield from (piece for piece in pieces if piece[3][index] == where.value)


def networks(pieces: Iterable[Piece]) -> dict[int, list[str]]:
    """The fewest CIDR networks that make up the pieces (in address order), by address family."""
    found: dict[int, list[str]] = {family: [] for family in FAMILIES}
    for family, first, last in merge_touching(piece[:3] for piece in pieces):
        blocks = range_blocks(family, first, last)
        found[family].extend(text for start, length in blocks for text in _texts(family, start, length))
    return found


def _texts(family: int, first: int, length: int) -> list[str]:
    if length:
        return [block_text(family, first, length)]
    half = 1 << (BITS[family] - 1)
    return [block_text(family, 0, 1), block_text(family, half, 1)]


def split(entries: Sequence[str], size: int) -> list[list[str]]:
    """``entries`` in order, in lists of at most ``size`` (none for none)."""
    return [list(entries[start : start + size]) for start in range(0, len(entries), size)]


def canonical(entry: str) -> str:
    """A CIDR block as this service writes it (``ipaddress``'s compressed form), however AWS gave it back."""
    try:
        return ipaddress.ip_network(entry, strict=False).with_prefixlen
    except ValueError:
        return entry


@dataclass(frozen=True, slots=True)
class Difference:
    """What to add to a set and remove from it to make it hold what it should."""

    added: list[str]
    removed: list[str]

    @property
    def empty(self) -> bool:
        return not self.added and not self.removed

    def batches(self, most: int = MAX_CHANGES) -> Iterator[tuple[list[str], list[str]]]:
        """The changes in calls of at most ``most`` additions and ``most`` removals (removals first, so that a
        full list makes room before it takes more)."""
        for start in range(0, len(self.removed), most):
            yield [], self.removed[start : start + most]
        for start in range(0, len(self.added), most):
            yield self.added[start : start + most], []


def difference(held: Iterable[str], wanted: Iterable[str]) -> Difference:
    """The entries to add and to remove (each in sorted order) so that ``held`` becomes ``wanted``."""
    have = {canonical(entry) for entry in held}
    want = {canonical(entry) for entry in wanted}
    return Difference(sorted(want - have), sorted(have - want))
