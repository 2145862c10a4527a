"""A version answered through aliases (``core.space.aliases``: a MaxMind DB file's 6to4 and Teredo prefixes) as the
pieces a table holds: each IPv4 piece once as IPv4 and once more under each alias, as the block of IPv6 addresses
that carry one of its addresses (``core.space.aliases.widened``, worked out on arrays), in address order among the
version's own IPv6 pieces. A join then answers an address under an alias with the IPv4 piece's data, as
``GET /lookup`` does, with no alias logic in the SQL.

The IPv6 family grows by the IPv4 pieces times the aliases (the shared IPv4 file's 450,116 pieces under two aliases:
900,232 more pieces).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from fencepost.core.space.addresses import BITS, V4, V6
from fencepost.core.space.aliases import Alias, parse_alias
from fencepost.enrichment.table import Bounds, FamilyTable, VersionTable

_HALF = 64
_ONES = (1 << _HALF) - 1


def _halves(value: int) -> tuple[np.uint64, np.uint64]:
    return np.uint64(value >> _HALF), np.uint64(value & _ONES)


def widened_bounds(alias: Alias, v4: npt.NDArray[np.uint32], *, ends: bool) -> Bounds:
    """IPv4 bounds as the IPv6 bounds of the blocks under ``alias`` that carry them (``ends``: the blocks' last
    addresses, the bits below the IPv4 address set), as 16-byte big-endian bounds."""
    first, length = alias
    shift = BITS[V6] - length - BITS[V4]
    values = v4.astype(np.uint64)
    if shift >= _HALF:
        high, low = values << np.uint64(shift - _HALF), np.zeros(len(values), dtype=np.uint64)
    elif shift == 0:
        high, low = np.zeros(len(values), dtype=np.uint64), values
    else:
        high, low = values >> np.uint64(_HALF - shift), values << np.uint64(shift)
    prefix_high, prefix_low = _halves(first | (((1 << shift) - 1) if ends else 0))
    pairs = np.stack([high | prefix_high, low | prefix_low], axis=1).astype(">u8")
    return np.ascontiguousarray(pairs).view("S16").ravel()


def _under(alias: Alias, v4: FamilyTable, offset: int) -> tuple[list[Bounds], npt.NDArray[np.uint32]]:
    """``v4``'s pieces and ranges under ``alias``: starts, ends, range starts, range ends, and the pieces' rows
    (shifted by ``offset``, where the alias's copy of the IPv4 rows begins)."""
    bounds = [
        widened_bounds(alias, v4.starts, ends=False),
        widened_bounds(alias, v4.ends, ends=True),
        widened_bounds(alias, v4.range_starts, ends=False),
        widened_bounds(alias, v4.range_ends, ends=True),
    ]
    return bounds, (v4.rows + np.uint32(offset)).astype(np.uint32)


def table_families(version: VersionTable) -> list[FamilyTable]:
    """The families a table of ``version`` holds: as they are, or with the IPv4 pieces copied under each alias into
    the IPv6 family."""
    families = [version.families[family] for family in (V4, V6) if family in version.families]
    if not version.aliases or V4 not in version.families:
        return families
    v4, v6 = version.families[V4], version.families.get(V6)
    parts: list[list[Any]] = [[] for _ in range(5)]  # starts, ends, range starts, range ends, rows
    values: list[tuple[str, ...]] = []
    if v6 is not None:
        for part, array in zip(parts, (v6.starts, v6.ends, v6.range_starts, v6.range_ends, v6.rows), strict=True):
            part.append(array)
        values += v6.values
    for alias in map(parse_alias, version.aliases):
        bounds, rows = _under(alias, v4, len(values))
        for part, array in zip(parts, (*bounds, rows), strict=True):
            part.append(array)
        values += v4.values
    starts, ends, range_starts, range_ends, rows = (np.concatenate(part) for part in parts)
    order = np.argsort(starts, kind="stable")  # disjoint: ordered by their starts
    six = FamilyTable(V6, starts[order], ends[order], rows[order], range_starts, range_ends, values)
    return [v4, six]
