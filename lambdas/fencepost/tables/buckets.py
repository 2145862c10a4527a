"""The bucket key that turns the range join (``ip BETWEEN start AND end``) into an equi-join.

A *bucket* is an address prefix at one of a few fixed *levels* (prefix lengths), byte-aligned so that a query engine
cuts it from an address with a substring:

- IPv4: ``/24``, ``/16``, ``/8``, ``/0``;
- IPv6: ``/48``, ``/40``, ``/32``, ``/24``, ``/16``, ``/8``, ``/0``.

Each piece of a version is stored at the finest level where it spans at most ``MAX_COPIES`` (8) buckets, once in
each of them; the coarsest level is one bucket for the family, so every piece has a level. A lookup address probes
its own bucket at each level of its family (4 for IPv4, 7 for IPv6, whatever the data): one of them holds the piece
the address is in, if any, and a bounds check among the bucket's pieces finds it.

The cost of the join is then proportional to the rows: at most 7 probes an address, each matching the pieces of one
bucket. A bucket of a coarse level holds only pieces that span more than ``MAX_COPIES`` buckets of the next finer
level, so at most 256 / 7 + 2 = 38 disjoint pieces; only the finest level's buckets hold as many pieces as the data
puts in a ``/24`` or a ``/48``.

The finest levels were chosen on iptoasn's files (450,116 IPv4 pieces; 167,930 IPv6 pieces, half of them ``/32``
to ``/48``), weighing the rows written per piece (the *replication*) against the pieces an address meets in its
buckets (*candidates*, averaged over the pieces), with ``MAX_COPIES`` 8: IPv4 ``/16`` finest writes 1.04 rows a piece
but meets 51 candidates (540 pieces in the fullest bucket), ``/24`` 2.35 rows and 1.6 candidates (34); IPv6 ``/32``
finest 1.49 rows and 194 candidates (3,712), ``/40`` 1.67 and 8.7 (209), ``/48`` 2.00 and 1.9 (140). ``MAX_COPIES``
4 writes 1.7 and 1.4 rows (3.0 and 3.3 candidates), 16 writes 3.4 and 3.5 (1.2 and 1.3).

The key is one 64-bit integer: the family in its top byte, the level's length in the next, the prefix (at most 48
bits) below: ``family << 56 | length << 48 | prefix``, ``prefix`` being the first ``length`` bits of the address (of
its 32 bits for IPv4, of its 128 for IPv6). Keys of different families or levels never meet.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fencepost.core.space.addresses import V4, V6

LEVELS: Final = {V4: (24, 16, 8, 0), V6: (48, 40, 32, 24, 16, 8, 0)}  # finest first
MAX_COPIES: Final = 8  # buckets a piece is written to, at most
FAMILY_SHIFT: Final = 56
LENGTH_SHIFT: Final = 48
HELD_BITS: Final = {V4: 32, V6: 48}  # the leading bits of an address a key can hold

Keys = npt.NDArray[np.int64]
Tops = npt.NDArray[np.uint64]


def key_base(family: int, length: int) -> int:
    """The key of the level's first bucket (prefix 0)."""
    return family << FAMILY_SHIFT | length << LENGTH_SHIFT


def bucket_key(family: int, length: int, address: int) -> int:
    """The key of the bucket holding ``address`` (an IPv4 or IPv6 integer) at level ``length``."""
    bits = 32 if family == V4 else 128
    return key_base(family, length) | address >> (bits - length)


def address_keys(family: int, address: int) -> list[int]:
    """Every bucket a lookup of ``address`` probes, one a level."""
    return [bucket_key(family, length, address) for length in LEVELS[family]]


def tops(family: int, bounds: npt.NDArray[Any]) -> Tops:
    """The leading ``HELD_BITS`` bits of each bound (``uint32`` IPv4, ``S16`` IPv6: as ``enrichment.table`` holds
    them)."""
    if family == V4:
        return bounds.astype(np.uint64)
    octets = np.ascontiguousarray(bounds).view(np.uint8).reshape(-1, 16)
    padded = np.zeros((len(octets), 8), dtype=np.uint8)
    padded[:, 2:] = octets[:, :6]
    return padded.view(">u8").ravel().astype(np.uint64)


def prefixes(family: int, top: Tops, length: int) -> Tops:
    return top >> np.uint64(HELD_BITS[family] - length)


def levels(family: int, starts: Tops, ends: Tops) -> npt.NDArray[np.uint8]:
    """Each piece's level: the finest where it spans at most ``MAX_COPIES`` buckets (``starts``, ``ends``: ``tops``)."""
    chosen = np.zeros(len(starts), dtype=np.uint8)
    open_ = np.ones(len(starts), dtype=np.bool_)
    for length in LEVELS[family]:
        spans = prefixes(family, ends, length) - prefixes(family, starts, length) + np.uint64(1)
        fits = open_ & (spans <= MAX_COPIES)
        chosen[fits] = length
        open_ &= ~fits
    return chosen


def copies(family: int, length: int, starts: Tops, ends: Tops) -> tuple[npt.NDArray[np.intp], Keys]:
    """For pieces of one level, in address order: the piece of each row written (its index) and the row's key, one
    row a bucket the piece spans; rows come in key order, then address order within a key."""
    first = prefixes(family, starts, length).astype(np.int64)
    counts = prefixes(family, ends, length).astype(np.int64) - first + 1
    pieces = np.repeat(np.arange(len(first), dtype=np.intp), counts)
    ends_at = np.cumsum(counts)
    offsets = np.arange(int(ends_at[-1]) if len(ends_at) else 0, dtype=np.int64) - np.repeat(ends_at - counts, counts)
    return pieces, key_base(family, length) + first[pieces] + offsets
