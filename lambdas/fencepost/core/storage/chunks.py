"""Chunks: a build's pieces shuffled across partitions, cut into messages that parallel writers turn into items.

The pieces of every family are numbered in one index space; the write order is a seeded shuffle of those
numbers, so consecutive writes land on different partitions. A chunk carries its pieces compactly (family,
start, end, an index into the chunk's own table of metadata tuples, the original range when it differs or a gap
follows, and the gap's last address), as
zlib-compressed JSON in base64, so that one queue message holds thousands of pieces.
"""

from __future__ import annotations

import base64
import json
import random
import zlib
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from fencepost.core.space.addresses import FAMILIES
from fencepost.core.space.ranges import Piece
from fencepost.core.storage.items import Item, range_item
from fencepost.core.versions.build import FamilyRanges, Pieces

# A standard SQS message holds 256 KiB; leave room for the envelope.
MAX_PAYLOAD_CHARS = 200_000


class Book:
    """Every piece of a build, of every family, numbered ``0 .. len-1``."""

    def __init__(self, ranges: dict[int, FamilyRanges], pieces: dict[int, Pieces]) -> None:
        self.ranges = ranges
        self.pieces = pieces
        self._families = list(FAMILIES)
        self._firsts = list(accumulate((len(pieces[family]) for family in FAMILIES[:-1]), initial=0))
        self._count = sum(len(pieces[family]) for family in FAMILIES)

    def __len__(self) -> int:
        return self._count

    def _where(self, index: int) -> tuple[int, int]:
        """The family of piece ``index``, and its position among that family's pieces."""
        slot = bisect_right(self._firsts, index) - 1
        return self._families[slot], index - self._firsts[slot]

    def locate(self, index: int) -> tuple[int, Piece]:
        family, local = self._where(index)
        return family, self.pieces[family][local]

    def gap_end(self, index: int) -> int | None:
        family, local = self._where(index)
        return self.pieces[family].gap_end(local)

    def shuffled(self, seed: int) -> array[int]:
        """The write order: a seeded shuffle of every piece's number."""
        order = array("I", range(len(self)))
        random.Random(seed).shuffle(order)
        return order

    def encode(self, indices: Sequence[int]) -> str:
        table: dict[tuple[str, ...], int] = {}
        rows: list[list[Any]] = []
        for index in indices:
            family, local = self._where(index)
            pieces, ranges = self.pieces[family], self.ranges[family]
            start, end, source = pieces.starts[local], pieces.ends[local], pieces.sources[local]
            span_start, span_end = ranges.starts[source], ranges.ends[source]
            row: list[Any] = [family, f"{start:x}", f"{end:x}", table.setdefault(ranges.values[source], len(table))]
            gap = pieces.gap_end(local)
            if span_start != start or span_end != end or gap is not None:
                row += [f"{span_start:x}", f"{span_end:x}"]
            if gap is not None:
                row.append(f"{gap:x}")
            rows.append(row)
        document = {"values": list(table), "pieces": rows}
        packed = zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 1)  # fast; size matters less
        return base64.b64encode(packed).decode()

    def items(self, indices: Sequence[int], dataset: str, version: int) -> list[Item]:
        return [
            self.ranges[family].item(dataset, version, piece, self.gap_end(index))
            for index, (family, piece) in zip(indices, map(self.locate, indices), strict=True)
        ]


def decode(payload: str, dataset: str, version: int) -> list[Item]:
    document = json.loads(zlib.decompress(base64.b64decode(payload)))
    values = [tuple(v) for v in document["values"]]
    items = []
    for row in document["pieces"]:
        family, start, end = row[0], int(row[1], 16), int(row[2], 16)
        span = (int(row[4], 16), int(row[5], 16)) if len(row) > 4 else (start, end)
        gap = int(row[6], 16) if len(row) > 6 else None
        piece = (start, end)
        items.append(range_item(dataset, version, family, piece=piece, source=span, values=values[row[3]], gap_end=gap))
    return items


def cut(
    order: Sequence[int],
    size: int,
    encoder: Callable[[Sequence[int]], str],
    max_chars: int = MAX_PAYLOAD_CHARS,
) -> Iterator[tuple[Sequence[int], str]]:
    """Consecutive runs of at most ``size`` entries, halved until each encodes within ``max_chars``.

    A single entry that is still too large is yielded anyway: the caller writes it itself.
    """
    for offset in range(0, len(order), size):
        pending = [order[offset : offset + size]]
        while pending:
            run = pending.pop()
            payload = encoder(run)
            if len(payload) > max_chars and len(run) > 1:
                middle = len(run) // 2
                pending += [run[middle:], run[:middle]]
            else:
                yield run, payload


@dataclass(slots=True)
class WriteOutcome:
    """What one bulk write did: items written, calls made and refused, and what is left at the deadline."""

    written: int = 0
    calls: int = 0  # BatchWriteItem calls made
    throttled: int = 0  # calls refused or answered with unprocessed items
    retries: int = 0  # items sent again after such an answer
    unfinished: list[dict[str, Any]] = field(default_factory=list)  # requests not written by the deadline
