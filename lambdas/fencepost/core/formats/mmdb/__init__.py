"""MaxMind DB (``.mmdb``) files as ranges: every network of the search tree, its record as dotted columns.

The file is held in memory whole (within ``max_object_bytes``); the ``maxminddb`` package checks its metadata and
decodes its records (``records``, held to the data section and to the loader's limits), and the search tree is
walked here (``tree``), twice: once to learn the columns and the aliases, once to add the ranges. Each distinct
record (files share records between many networks) is decoded once.

Columns: a record's leaves become dotted columns (``country.iso_code``, ``city.names.en``, ``location.latitude``;
arrays are indexed: ``subdivisions.0.iso_code``); strings stay as they are, numbers and booleans become their JSON
text (``42``, ``1.5``, ``true``), bytes their hex. ``"columns"`` in the folder's settings chooses the paths, in its
order; without it every leaf path of the file is a column, in first-seen order (the networks in address order),
except translated names (``*.names.<lang>``) other than English (``*.names.en``). A network whose record lacks a
path gets an empty value there.

Addresses: lookups answer from the pieces of the address's own family, and answer ``::ffff:a.b.c.d`` as IPv4, so
an IPv6 database is stored so that every answer agrees with the file's own ``get()``:

- a network inside (or covering) the IPv4 subtree at ``::/96`` is stored once, as the IPv4 range it carries
  (which is where IPv4 lookups look); the version lists ``::/96`` as an alias, so ``::1.2.3.4`` is answered from
  it, as the file answers it (``fencepost.core.space.aliases``);
- networks inside ``::ffff:0:0/96`` are dropped: lookups answer those addresses as IPv4;
- an alias (a tree record pointing back to the IPv4 subtree, as 6to4 ``2002::/16`` and Teredo ``2001::/32`` do)
  is not walked again and stores nothing: the version lists it, and lookups under it read the IPv4 piece of the
  address it carries. Every network is stored once.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Final, cast

import maxminddb
from maxminddb.errors import InvalidDatabaseError

from fencepost.core.folders.limits import Limits
from fencepost.core.formats.base import FileError, ProblemSink, RangeSink, ReadOptions
from fencepost.core.formats.mmdb.records import BoundedDecoder, Records, default_column
from fencepost.core.formats.mmdb.tree import Tree, Work
from fencepost.core.space.addresses import MAPPED_FIRST, TOP, V4, V6, unmapped
from fencepost.core.space.aliases import alias_text

__all__ = ["MmdbSummary", "Room", "default_column", "read_mmdb"]

_V4_TOP: Final = TOP[V4]
_CORRUPT: Final = (InvalidDatabaseError, ValueError, IndexError, KeyError, TypeError, struct.error, RecursionError)
_METADATA_MARKER: Final = b"\xab\xcd\xefMaxMind.com"
_SEPARATOR_BYTES: Final = 16  # between the search tree and the data section


@dataclass(frozen=True, slots=True)
class MmdbSummary:
    columns: tuple[str, ...]
    rows: int  # networks with a record, stored
    ranges: int  # ranges added: one a network (two for a network holding the IPv4 subtree and more)
    aliases: tuple[str, ...]  # the networks found aliased to the IPv4 subtree, e.g. "2002::/16"
    build_epoch: int | None = None  # when the publisher built the database (metadata; core.versions.data_dates)


class _Whole:
    """The file for ``MODE_FD``, which reads it whole: given without a copy."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self) -> bytes:
        return self.data


@dataclass(frozen=True, slots=True)
class Room:
    """What is left of the build's limits for this file: ranges (``max_build_rows``) and bytes of rows
    (``max_build_bytes``)."""

    ranges: int
    bytes: int


def read_mmdb(
    name: str,
    data: bytes,
    options: ReadOptions,
    ranges: RangeSink,
    problems: ProblemSink,
    *,
    limits: Limits,
    room: Room,
    tick: Callable[[int], None] = lambda _: None,
) -> MmdbSummary:
    """Add the ranges of one MaxMind DB file; raises ``FileError`` for a file that cannot be read, or one that
    crosses one of the loader's ``limits`` (within what is left of them, ``room``)."""
    work = Work(tick)
    try:
        reader = maxminddb.open_database(cast(IO[bytes], _Whole(data)), maxminddb.MODE_FD)
        meta = reader.metadata()
        reader.close()
        data_start = meta.search_tree_size + _SEPARATOR_BYTES
        data_end = data.rfind(_METADATA_MARKER)
        if data_end < data_start:
            raise FileError(
                None,
                f"the MaxMind DB metadata claims {meta.node_count:,} tree nodes ({meta.search_tree_size:,} bytes), "
                f"more than the file holds before its metadata ({max(data_end, 0):,} bytes): it is corrupt",
            )
        tree = Tree(data, meta.node_count, meta.record_size, 128 if meta.ip_version == 6 else 32)
        decoder = BoundedDecoder(data, data_start, data_end)
        records = Records(decoder, options.columns, limits=limits, room=room.bytes, work=work)
        base = meta.search_tree_size - meta.node_count  # a record's pointer, made a byte offset in the file
        counted = 0  # ranges to add: one a network; two for the one network holding the IPv4 subtree and more
        for start, depth, pointer in tree.walk(work):
            counted += 2 if tree.bits == 128 and start <= _V4_TOP < start + (1 << (128 - depth)) - 1 else 1
            if counted > room.ranges:
                raise FileError(None, limits.too_many_rows())
            records.learn(pointer, pointer + base)
    except _CORRUPT as error:
        raise FileError(None, f"not a readable MaxMind DB file ({type(error).__name__}: {error})") from None
    values = records.values(name, problems)
    stored, added = _add_ranges(tree, values, ranges, work)
    aliases = [(address << (128 - depth), depth) for address, depth in tree.aliases if (address, depth) != (0xFFFF, 96)]
    if tree.bits == 128:  # an IPv6 file answers ::a.b.c.d as it answers a.b.c.d
        aliases.append((0, 96))
    epoch = meta.build_epoch if isinstance(meta.build_epoch, int) else None
    return MmdbSummary(tuple(records.columns), stored, added, tuple(sorted(map(alias_text, aliases))), epoch)


def _add_ranges(
    tree: Tree, values: dict[int, tuple[str, ...] | None], ranges: RangeSink, work: Work
) -> tuple[int, int]:
    """Add every network with a storable record as its ranges (the IPv4 subtree as IPv4, mapped addresses
    left to IPv4); the networks stored and the ranges added."""
    added = stored = 0

    def add(family: int, start: int, end: int, record: tuple[str, ...]) -> None:
        nonlocal added
        for part in unmapped(family, start, end):
            if part[0] == family:  # the mapped part of an IPv6 range: lookups answer it as IPv4
                ranges.add(*part, record)
                added += 1

    for start, depth, pointer in tree.walk(work):
        record = values[pointer]
        if record is None:
            continue
        stored += 1
        end = start + (1 << (tree.bits - depth)) - 1
        if tree.bits == 32:
            add(V4, start, end, record)
            continue
        if start <= _V4_TOP:  # the IPv4 subtree: stored once, as IPv4; ::/96 is answered through its alias
            add(V4, start, min(end, _V4_TOP), record)
        if end > _V4_TOP:
            add(V6, max(start, _V4_TOP + 1), end, record)
    return stored, added


assert MAPPED_FIRST == 0xFFFF << 32  # the alias (0xFFFF, 96) above is ::ffff:0:0/96
