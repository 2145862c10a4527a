"""MaxMind DB (``.mmdb``) files as ranges: every network of the search tree, its record as dotted columns.

The file is held in memory whole (within ``max_object_bytes``); the ``maxminddb`` package checks its metadata and
decodes its records, and the search tree is walked here, twice: once to learn the columns and the aliases, once
to add the ranges. Each distinct record (files share records between many networks) is decoded once.

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
  it, as the file answers it (``fencepost.core.aliases``);
- networks inside ``::ffff:0:0/96`` are dropped: lookups answer those addresses as IPv4;
- an alias (a tree record pointing back to the IPv4 subtree, as 6to4 ``2002::/16`` and Teredo ``2001::/32`` do)
  is not walked again and stores nothing: the version lists it, and lookups under it read the IPv4 piece of the
  address it carries. Every network is stored once.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Final, cast

import maxminddb
from maxminddb.decoder import Decoder
from maxminddb.errors import InvalidDatabaseError

from fencepost.core.addresses import MAPPED_FIRST, TOP, V4, V6, unmapped
from fencepost.core.aliases import alias_text
from fencepost.core.formats import FileError, ProblemSink, RangeSink, ReadOptions
from fencepost.core.items import oversized_metadata
from fencepost.core.problems import Problem

TICK_EVERY: Final = 1 << 16  # tree nodes between two calls of ``tick`` (progress and the deadline)
_V4_TOP: Final = TOP[V4]
_CORRUPT: Final = (InvalidDatabaseError, ValueError, IndexError, KeyError, TypeError, struct.error, RecursionError)


@dataclass(frozen=True, slots=True)
class MmdbSummary:
    columns: tuple[str, ...]
    rows: int  # networks with a record, stored
    ranges: int  # ranges added: one a network (two for a network holding the IPv4 subtree and more)
    aliases: tuple[str, ...]  # the networks found aliased to the IPv4 subtree, e.g. "2002::/16"


class _Whole:
    """The file for ``MODE_FD``, which reads it whole: given without a copy."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self) -> bytes:
        return self.data


class _Tree:
    """The search tree of one database, walked in address order."""

    def __init__(self, data: bytes, nodes: int, record_size: int, bits: int) -> None:
        self.data, self.nodes, self.record_size, self.bits = data, nodes, record_size, bits
        self.ipv4 = self._ipv4_start() if bits == 128 else -1
        self.aliases: list[tuple[int, int]] = []  # (address bits, depth) of each alias found by the last walk

    def children(self, node: int) -> tuple[int, int]:
        data = self.data
        if self.record_size == 24:
            at = node * 6
            return int.from_bytes(data[at : at + 3], "big"), int.from_bytes(data[at + 3 : at + 6], "big")
        if self.record_size == 28:
            at = node * 7
            middle = data[at + 3]
            left = ((middle & 0xF0) << 20) | int.from_bytes(data[at : at + 3], "big")
            return left, ((middle & 0x0F) << 24) | int.from_bytes(data[at + 4 : at + 7], "big")
        at = node * 8
        return int.from_bytes(data[at : at + 4], "big"), int.from_bytes(data[at + 4 : at + 8], "big")

    def _ipv4_start(self) -> int:
        """The node 96 zero bits below the root, as the reader finds it (a record when the tree stops earlier)."""
        node = 0
        for _ in range(96):
            if node >= self.nodes:
                break
            node = self.children(node)[0]
        return node

    def walk(self, tick: Callable[[int], None], max_visits: int) -> Iterator[tuple[int, int, int]]:
        """(first address, prefix length, data pointer) of every network with a record, in address order."""
        nodes, bits, ipv4 = self.nodes, self.bits, self.ipv4
        aliasing = 0 < ipv4 < nodes
        self.aliases = []
        stack = [(0, 0, 0)] if nodes else []  # (record, depth, address bits so far)
        visits = 0
        while stack:
            record, depth, address = stack.pop()
            if record > nodes:
                yield address << (bits - depth), depth, record
                continue
            if record == nodes:
                continue  # no data
            if aliasing and record == ipv4 and address and depth <= 96:
                self.aliases.append((address, depth))
                continue
            visits += 1
            if not visits % TICK_EVERY:
                tick(visits)
            if depth >= bits or visits > max_visits:
                raise FileError(None, "the MaxMind DB search tree is corrupt (it loops or is deeper than an address)")
            left, right = self.children(record)
            stack.append((right, depth + 1, address << 1 | 1))
            stack.append((left, depth + 1, address << 1))


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.hex()
    return json.dumps(value)  # true, 42, 1.5


def _leaves(value: Any, path: str, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _leaves(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _leaves(item, f"{path}.{index}" if path else str(index), out)
    else:
        out.append((path or "value", _text(value)))


def default_column(path: str) -> bool:
    """Kept without a ``columns`` setting: every leaf but translated names, whose English one is kept."""
    parts = path.split(".")
    return len(parts) < 2 or parts[-2] != "names" or parts[-1] == "en"


class _Records:
    """Each distinct record decoded once, as (column index, text) pairs; the columns in first-seen order."""

    def __init__(self, data: bytes, nodes: int, tree_size: int, chosen: tuple[str, ...] | None) -> None:
        self.decoder = Decoder(data, tree_size + 16)
        self.base, self.end = tree_size - nodes, len(data)
        self.fixed = chosen is not None
        self.columns: dict[str, int] = {name: index for index, name in enumerate(chosen or ())}
        self.pairs: dict[int, tuple[tuple[int, str], ...]] = {}

    def learn(self, pointer: int) -> None:
        if pointer in self.pairs:
            return
        resolved = pointer + self.base
        if resolved >= self.end:
            raise FileError(None, "the MaxMind DB search tree points past the end of the file: it is corrupt")
        leaves: list[tuple[str, str]] = []
        _leaves(self.decoder.decode(resolved)[0], "", leaves)
        columns, pairs = self.columns, []
        for path, text in leaves:
            if not self.fixed and path not in columns and default_column(path):
                columns[path] = len(columns)
            if (index := columns.get(path)) is not None:
                pairs.append((index, text))
        self.pairs[pointer] = tuple(pairs)

    def values(self, name: str, problems: ProblemSink) -> dict[int, tuple[str, ...] | None]:
        """Every record's values in column order; None for a record too large for an item (a problem)."""
        width, found = len(self.columns), {}
        for pointer, pairs in self.pairs.items():
            cells = [""] * width
            for index, text in pairs:
                cells[index] = text
            values: tuple[str, ...] | None = tuple(cells)
            if (size := oversized_metadata(cells)) is not None:
                problems.add(Problem(name, None, f"a record of {size} bytes does not fit a 400 KB DynamoDB item"))
                values = None
            found[pointer] = values
        self.pairs.clear()
        return found


def read_mmdb(
    name: str,
    data: bytes,
    options: ReadOptions,
    ranges: RangeSink,
    problems: ProblemSink,
    *,
    max_ranges: int,
    too_many: str,
    tick: Callable[[int], None] = lambda _: None,
) -> MmdbSummary:
    """Add the ranges of one MaxMind DB file; raises ``FileError`` for a file that cannot be read, or one that
    would add more than ``max_ranges`` ranges (``too_many`` says which limit)."""
    try:
        reader = maxminddb.open_database(cast(IO[bytes], _Whole(data)), maxminddb.MODE_FD)
        meta = reader.metadata()
        reader.close()
        tree = _Tree(data, meta.node_count, meta.record_size, 128 if meta.ip_version == 6 else 32)
        records = _Records(data, meta.node_count, meta.search_tree_size, options.columns)
        counted = 0  # ranges to add: one a network; two for the one network holding the IPv4 subtree and more
        for start, depth, pointer in tree.walk(tick, meta.node_count + max_ranges):
            counted += 2 if tree.bits == 128 and start <= _V4_TOP < start + (1 << (128 - depth)) - 1 else 1
            if counted > max_ranges:
                raise FileError(None, too_many)
            records.learn(pointer)
    except _CORRUPT as error:
        raise FileError(None, f"not a readable MaxMind DB file ({type(error).__name__}: {error})") from None
    values = records.values(name, problems)
    added = stored = 0

    def add(family: int, start: int, end: int, record: tuple[str, ...]) -> None:
        nonlocal added
        for part in unmapped(family, start, end):
            if part[0] == family:  # the mapped part of an IPv6 range: lookups answer it as IPv4
                ranges.add(*part, record)
                added += 1

    for start, depth, pointer in tree.walk(tick, meta.node_count + max_ranges):
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
    aliases = [(address << (128 - depth), depth) for address, depth in tree.aliases if (address, depth) != (0xFFFF, 96)]
    if tree.bits == 128:  # an IPv6 file answers ::a.b.c.d as it answers a.b.c.d
        aliases.append((0, 96))
    return MmdbSummary(tuple(records.columns), stored, added, tuple(sorted(map(alias_text, aliases))))


assert MAPPED_FIRST == 0xFFFF << 32  # the alias (0xFFFF, 96) above is ::ffff:0:0/96
