"""The value index of one column of a version: every piece grouped by that column's value, for reverse lookups.

A build that names the column in its folder's ``"index"`` setting writes two objects per column beside its report
(``core.storage.objects.index_key`` and ``values_key``), in the bucket rather than the table, so that no key is hot:

- the *index*: one line per stored piece, sorted by value, then family, then start, as gzip members of
  ``MEMBER_LINES`` lines (``core.storage.members``, so a page is one ranged GET from any member). A line is
  ``<family> <start hex> <end hex> <piece JSON>``, the JSON exactly what ``GET /ranges`` answers for the piece;
- the *directory* (``Directory``): the byte offset of each member and the family and start of its first line, then
  one entry per distinct value, in value order: where its lines start and how many, the IPv4 addresses and IPv6
  /64s its pieces cover.

Built from the flattened pieces, it answers exactly what lookups answer: a piece is in value ``v`` of a column iff
a lookup of any of its addresses answers ``v`` there.
"""

from __future__ import annotations

import gzip
import json
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from fencepost.core.space.addresses import FAMILIES, V4, V6, format_address
from fencepost.core.storage.members import MEMBER_LINES, Position
from fencepost.core.versions.build import FamilyRanges, Pieces

SLASH_64: Final = 64  # IPv6 addresses below a /64 boundary


class IndexFileError(ValueError):
    """An index object that cannot be read; the message says why."""


@dataclass(frozen=True, slots=True)
class ValueStats:
    """One distinct value: its first line in the index, and what its pieces cover."""

    value: str
    first: int
    pieces: int
    ipv4_addresses: int
    ipv6_64s: int

    def body(self) -> dict[str, object]:
        return {
            "value": self.value,
            "pieces": self.pieces,
            "ipv4_addresses": self.ipv4_addresses,
            "ipv6_64s": self.ipv6_64s,
        }


@dataclass(frozen=True, slots=True)
class Directory:
    """Where each member of an index starts and what its first line holds, and every value's entry."""

    column: str
    lines: int
    offsets: list[int]  # byte offset of each member
    heads: list[tuple[int, int]]  # (family, start) of each member's first line
    values: list[ValueStats]  # in value order

    def find(self, value: str) -> ValueStats | None:
        index = bisect_left(_Values(self.values), value)
        if index < len(self.values) and self.values[index].value == value:
            return self.values[index]
        return None

    def position(self, line: int) -> Position:
        """The position of the ``line``-th line (from 0) of the index."""
        return Position(self.offsets[line // MEMBER_LINES], line % MEMBER_LINES)

    def seek(self, stats: ValueStats, family: int, first: int) -> int:
        """A line of ``stats``'s value at or before its first piece of ``family`` ending at or after ``first``:
        the start of the member that holds it (or the value's first line), so skipping from there is at most one
        member's worth of lines."""
        last = stats.first + stats.pieces - 1
        low, high = stats.first // MEMBER_LINES, last // MEMBER_LINES
        heads = self.heads[low + 1 : high + 1]  # members that start inside the value, after its first line
        member = low + bisect_right(heads, (family, first))
        return max(stats.first, member * MEMBER_LINES)

    def text_lines(self) -> Iterator[str]:
        """The directory as JSON lines: a head, then one line per value."""
        head = {"column": self.column, "lines": self.lines, "offsets": self.offsets}
        head["heads"] = [[family, f"{start:x}"] for family, start in self.heads]
        yield _json(head) + "\n"
        for stats in self.values:
            yield _json([stats.value, stats.first, stats.pieces, stats.ipv4_addresses, stats.ipv6_64s]) + "\n"

    @classmethod
    def parse(cls, lines: Iterable[bytes]) -> Directory:
        """Raises ``IndexFileError`` for a directory that is not one."""
        try:
            rows = iter(lines)
            head = json.loads(next(rows))
            heads = [(int(family), int(start, 16)) for family, start in head["heads"]]
            values = [ValueStats(str(v), int(f), int(p), int(a), int(s)) for v, f, p, a, s in map(json.loads, rows)]
            return cls(str(head["column"]), int(head["lines"]), [int(o) for o in head["offsets"]], heads, values)
        except (StopIteration, ValueError, KeyError, TypeError) as error:
            raise IndexFileError(f"not a value index directory ({error})") from None


class _Values(Sequence[str]):
    """The values of a directory as a sequence, for bisecting without a copy."""

    def __init__(self, values: list[ValueStats]) -> None:
        self.values = values

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return self.values[index].value


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def piece_line(family: int, start: int, end: int, data: str) -> str:
    """One index line: the piece's family and bounds for seeking, then its ``GET /ranges`` JSON (``data``: its
    ``data`` object's JSON text; addresses in canonical text need no escaping)."""
    first, last = format_address(family, start), format_address(family, end)
    return f'{family} {start:x} {end:x} {{"start":"{first}","end":"{last}","data":{data}}}\n'


class _DataTexts(dict[tuple[str, ...], str]):
    """The ``data`` JSON of each distinct metadata, made once (pieces of one row, and rows alike, share it)."""

    def __init__(self, columns: Sequence[str]) -> None:
        super().__init__()
        self.columns = columns

    def __missing__(self, values: tuple[str, ...]) -> str:
        text = self[values] = _json(dict(zip(self.columns, values, strict=False)))
        return text


def parse_line(line: bytes) -> tuple[int, int, int, bytes]:
    """``(family, start, end, piece JSON)`` of an index line. Raises ``ValueError``."""
    family, start, end, body = line.split(b" ", 3)
    return int(family), int(start, 16), int(end, 16), body


def _order(families: Mapping[int, FamilyRanges], pieces: Mapping[int, Pieces], at: int) -> list[tuple[str, int, int]]:
    """``(value, family, index of the piece)`` of every piece, sorted by value, family and start."""
    keyed: list[tuple[str, int, int]] = []
    for family in FAMILIES:
        values, sources = families[family].values, pieces[family].sources
        keyed.extend((values[source][at], family, index) for index, source in enumerate(sources))
    keyed.sort()  # pieces of a family are in address order already, so (value, family, index) is the order wanted
    return keyed


def build_index(
    families: Mapping[int, FamilyRanges], pieces: Mapping[int, Pieces], columns: Sequence[str], column: str
) -> tuple[list[bytes], Directory]:
    """The index's gzip members and its directory, for ``column`` (one of ``columns``)."""
    at = columns.index(column)
    members: list[bytes] = []
    offsets: list[int] = []
    heads: list[tuple[int, int]] = []
    stats: list[ValueStats] = []
    batch: list[str] = []
    offset = 0
    counting: _Counting | None = None
    texts = _DataTexts(columns)
    for line_number, (value, family, index) in enumerate(_order(families, pieces, at)):
        held = pieces[family]
        start, end = held.starts[index], held.ends[index]
        if counting is None or counting.value != value:
            if counting is not None:
                stats.append(counting.stats())
            counting = _Counting(value, line_number)
        counting.add(family, start, end)
        if not batch:
            heads.append((family, start))
        batch.append(piece_line(family, start, end, texts[families[family].values[held.sources[index]]]))
        if len(batch) == MEMBER_LINES:
            offset = _close(batch, members, offsets, offset)
    if batch:
        _close(batch, members, offsets, offset)
    if counting is not None:
        stats.append(counting.stats())
    lines = sum(len(held) for held in pieces.values())
    return members, Directory(column, lines, offsets, heads, stats)


def _close(batch: list[str], members: list[bytes], offsets: list[int], offset: int) -> int:
    member = gzip.compress("".join(batch).encode(), compresslevel=6, mtime=0)
    members.append(member)
    offsets.append(offset)
    batch.clear()
    return offset + len(member)


class _Counting:
    """The figures of one value as its pieces go by (in family, then address order)."""

    def __init__(self, value: str, first: int) -> None:
        self.value, self.first = value, first
        self.pieces = self.v4 = self.v6 = 0
        self.last_64 = -1  # the last /64 counted: pieces of one /64 count it once

    def add(self, family: int, start: int, end: int) -> None:
        self.pieces += 1
        if family == V4:
            self.v4 += end - start + 1
            return
        assert family == V6
        low, high = max(start >> SLASH_64, self.last_64 + 1), end >> SLASH_64
        if high >= low:
            self.v6 += high - low + 1
            self.last_64 = high

    def stats(self) -> ValueStats:
        return ValueStats(self.value, self.first, self.pieces, self.v4, self.v6)


def directory_bytes(directory: Directory) -> bytes:
    """The directory as one gzip object."""
    return gzip.compress("".join(directory.text_lines()).encode(), compresslevel=6, mtime=0)
