"""A version as arrays: each family's pieces sorted by address, the row each answers from, and the rows' ranges and
values, read from the table file a build keeps (``core.storage.table_files``) without a loop per piece.

IPv4 bounds are ``uint32``; IPv6 bounds are 16-byte big-endian strings (``S16``), which numpy orders as the
numbers they are. ``TableStore`` answers the lookup's one Query from the arrays (``reading.lookup.LookupStore``), so
the read path's own code (gaps, aliases, mapped addresses) answers what the vectorized join cannot decide alone.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fencepost.core.space.addresses import FAMILIES, V4, format_address
from fencepost.core.space.gaps import gap_end
from fencepost.core.storage.items import Hit
from fencepost.core.storage.keys import Probe, partition_base
from fencepost.core.storage.table_files import DIGITS, ROW_DIGITS, TABLE_FORMAT, table_lines
from fencepost.core.versions.build import FamilyRanges, Pieces
from fencepost.model import LivePointer, VersionInfo

Bounds = npt.NDArray[Any]  # uint32 (IPv4) or S16 (IPv6)

SORTED_FROM = 65_536  # IPv4 queries searched in address order from this many on (``FamilyTable.below``)
_NIBBLE = np.full(256, 255, dtype=np.uint8)
_NIBBLE[np.frombuffer(b"0123456789abcdef", dtype=np.uint8)] = np.arange(16, dtype=np.uint8)


class TableError(ValueError):
    """A table file that cannot be read; the message says where."""


def _hex_bounds(family: int, digits: npt.NDArray[np.uint8]) -> Bounds:
    """Fixed-width lowercase hex (one row of ``digits`` per address) as bounds."""
    nibbles = _NIBBLE[digits]
    if (nibbles == 255).any():
        raise TableError("a bound is not lowercase hex")
    if family == V4:
        weights = np.uint32(16) ** np.arange(7, -1, -1, dtype=np.uint32)
        summed: Bounds = (nibbles.astype(np.uint32) * weights).sum(axis=1, dtype=np.uint32)
        return summed
    pairs = (nibbles[:, 0::2] << 4) | nibbles[:, 1::2]
    return np.ascontiguousarray(pairs).view("S16").ravel()


def bound_bytes(family: int, values: Sequence[int]) -> Bounds:
    """Addresses as bounds of ``family`` (for arrays of queries)."""
    if family == V4:
        return np.asarray(values, dtype=np.uint32)
    return np.array([value.to_bytes(16, "big") for value in values], dtype="S16")


def bound_int(family: int, bound: Any) -> int:
    return int(bound) if family == V4 else int.from_bytes(bytes(bound).ljust(16, b"\0"), "big")


@dataclass(frozen=True, slots=True)
class FamilyTable:
    """One family's pieces (``starts``, ``ends``, ``rows``: sorted, disjoint) and the rows they answer from."""

    family: int
    starts: Bounds
    ends: Bounds
    rows: npt.NDArray[np.uint32]
    range_starts: Bounds
    range_ends: Bounds
    values: list[tuple[str, ...]]

    def __len__(self) -> int:
        return len(self.starts)

    def below(self, queries: Bounds) -> npt.NDArray[np.intp]:
        """For each query, the index of the last piece starting at or below it (-1: none does)."""
        if self.family != V4 or len(queries) < SORTED_FROM:
            return np.searchsorted(self.starts, queries, side="right") - 1
        # Many IPv4 queries are searched in address order (each search starts where the last ended in cache): each
        # query packed above its position, the pairs sorted, and the answers put back in place.
        packed = (queries.astype(np.uint64) << np.uint64(32)) | np.arange(len(queries), dtype=np.uint64)
        packed.sort()
        found = np.empty(len(queries), dtype=np.intp)
        ordered = (packed >> np.uint64(32)).astype(np.uint32)
        found[(packed & np.uint64(0xFFFFFFFF)).astype(np.intp)] = np.searchsorted(self.starts, ordered, "right") - 1
        return found

    def span(self, index: int) -> tuple[int, int]:
        """Piece ``index``'s first and last address."""
        return bound_int(self.family, self.starts[index]), bound_int(self.family, self.ends[index])

    def hit(self, index: int, *, texts: bool = True) -> Hit:
        """Piece ``index`` as the lookup's Query returns it (``core.storage.items.read_hit``); ``texts=False``: its
        bounds and its range's not written as text, for an answer that shows neither (``range``, ``match``)."""
        family = self.family
        start, end = self.span(index)
        row = int(self.rows[index])
        if not texts:
            return Hit(start, end, list(self.values[row]), "", "")
        span = bound_int(family, self.range_starts[row]), bound_int(family, self.range_ends[row])
        shown = None if span == (start, end) else (format_address(family, span[0]), format_address(family, span[1]))
        following = bound_int(family, self.starts[index + 1]) if index + 1 < len(self) else None
        gap = gap_end(family, end, following)
        values = list(self.values[row])
        return Hit(start, end, values, format_address(family, start), format_address(family, end), shown, gap)


@dataclass(frozen=True, slots=True)
class VersionTable:
    columns: tuple[str, ...]
    aliases: tuple[str, ...]
    families: Mapping[int, FamilyTable]

    @classmethod
    def of_build(
        cls,
        families: Mapping[int, FamilyRanges],
        pieces: Mapping[int, Pieces],
        columns: Sequence[str],
        aliases: Sequence[str] = (),
    ) -> VersionTable:
        """A build's pieces, through the very lines its table file holds."""
        return cls.parse("".join(table_lines(families, pieces, columns, aliases)).encode())

    @classmethod
    def read(cls, body: bytes) -> VersionTable:
        """A table file as stored (gzip)."""
        try:
            data = gzip.decompress(body)
        except (OSError, EOFError, zlib.error) as error:
            raise TableError(f"the table file is not gzip: {error}") from None
        return cls.parse(data)

    @classmethod
    def parse(cls, data: bytes) -> VersionTable:
        """A table file's text; ``TableError`` for one cut short or not as ``table_lines`` writes it."""
        try:
            return cls._parse(data)
        except TableError:
            raise
        except (ValueError, LookupError, TypeError) as error:
            raise TableError(f"the table file is cut short or malformed: {error}") from None

    @classmethod
    def _parse(cls, data: bytes) -> VersionTable:
        newline = data.find(b"\n")
        try:
            header = json.loads(data[:newline])
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("format") != TABLE_FORMAT:
            raise TableError(f"not a table file of format {TABLE_FORMAT}")
        at = newline + 1
        counts = {family: header["families"][str(family)] for family in FAMILIES}
        pieces: dict[int, tuple[Bounds, Bounds, npt.NDArray[np.uint32]]] = {}
        for family in FAMILIES:
            width = DIGITS[family]
            line = 2 * width + ROW_DIGITS + 3
            count = counts[family]["pieces"]
            block = np.frombuffer(data, dtype=np.uint8, count=count * line, offset=at).reshape(count, line)
            if count and not (block[:, line - 1] == 10).all():
                raise TableError(f"the IPv{family} pieces are not lines of {line} bytes")
            starts = _hex_bounds(family, block[:, :width])
            ends = _hex_bounds(family, block[:, width + 1 : 2 * width + 1])
            rows = _hex_bounds(V4, block[:, 2 * width + 2 : 2 * width + 2 + ROW_DIGITS])
            pieces[family] = (starts, ends, rows)
            at += count * line
        lines = data[at:].decode().split("\n")
        tables: dict[int, FamilyTable] = {}
        for family in FAMILIES:
            count = counts[family]["rows"]
            mine, lines = lines[:count], lines[count:]
            parts = [line.split("\t", 2) for line in mine]
            width = DIGITS[family]
            bounds = np.frombuffer(
                "".join(part[0] + part[1] for part in parts).encode("ascii"), dtype=np.uint8
            ).reshape(count, 2 * width)
            values = [tuple(json.loads(part[2])) for part in parts]
            tables[family] = FamilyTable(
                family,
                *pieces[family],
                range_starts=_hex_bounds(family, bounds[:, :width]),
                range_ends=_hex_bounds(family, bounds[:, width:]),
                values=values,
            )
        return cls(tuple(header["columns"]), tuple(header.get("aliases", ())), tables)


class TableStore:
    """The lookup's one Query, answered from a version's arrays (``reading.lookup.LookupStore.find``)."""

    def __init__(self, table: VersionTable) -> None:
        self.table = table

    # The job's versions are resolved before their arrays are read (``enrichment.resolving``): never asked.
    def get_live(self, name: str) -> LivePointer | None:
        del name
        return None

    def get_version(self, dataset: str, version: int) -> VersionInfo | None:
        del dataset, version
        return None

    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None:
        del dataset, version  # one version's store
        table = self.table.families[probe.family]
        address = partition_base(probe.family, probe.partition) + probe.bound
        index = int(table.below(bound_bytes(probe.family, [address]))[0])
        return None if index < 0 else table.hit(index)
