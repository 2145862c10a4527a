"""Chunks: a build's pieces shuffled across partitions, cut into messages that parallel writers turn into items.

A chunk carries its pieces compactly (family, start, end, original range when it differs, an index into the
chunk's own table of metadata tuples), as zlib-compressed JSON in base64, so that one queue message holds
thousands of pieces.
"""

from __future__ import annotations

import base64
import json
import random
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from fencepost.core.build import FamilyRanges
from fencepost.core.items import Item, range_item
from fencepost.core.ranges import Piece

# A standard SQS message holds 256 KiB; leave room for the envelope.
MAX_PAYLOAD_CHARS = 200_000


def shuffled(entries: list[tuple[int, Piece]], seed: int) -> list[tuple[int, Piece]]:
    """The write order: a seeded shuffle, so consecutive writes land on different partitions."""
    order = list(entries)
    random.Random(seed).shuffle(order)
    return order


def encode(entries: Sequence[tuple[int, Piece]], ranges: dict[int, FamilyRanges]) -> str:
    table: dict[tuple[str, ...], int] = {}
    rows: list[list[Any]] = []
    for family, (start, end, source) in entries:
        family_ranges = ranges[family]
        span_start, span_end = family_ranges.starts[source], family_ranges.ends[source]
        value_index = table.setdefault(family_ranges.values[source], len(table))
        row: list[Any] = [family, f"{start:x}", f"{end:x}", value_index]
        if (span_start, span_end) != (start, end):
            row += [f"{span_start:x}", f"{span_end:x}"]
        rows.append(row)
    document = {"values": list(table), "pieces": rows}
    packed = zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 6)
    return base64.b64encode(packed).decode()


def decode(payload: str, dataset: str, version: int) -> list[Item]:
    document = json.loads(zlib.decompress(base64.b64decode(payload)))
    values = [tuple(v) for v in document["values"]]
    items = []
    for row in document["pieces"]:
        family, start, end = row[0], int(row[1], 16), int(row[2], 16)
        span = (int(row[4], 16), int(row[5], 16)) if len(row) > 4 else (start, end)
        items.append(range_item(dataset, version, family, piece=(start, end), source=span, values=values[row[3]]))
    return items


def cut(
    entries: Sequence[tuple[int, Piece]],
    size: int,
    encoder: Callable[[Sequence[tuple[int, Piece]]], str],
    max_chars: int = MAX_PAYLOAD_CHARS,
) -> Iterator[tuple[Sequence[tuple[int, Piece]], str]]:
    """Consecutive runs of at most ``size`` entries, halved until each encodes within ``max_chars``.

    A single entry that is still too large is yielded anyway: the caller writes it itself.
    """
    for offset in range(0, len(entries), size):
        pending = [entries[offset : offset + size]]
        while pending:
            run = pending.pop()
            payload = encoder(run)
            if len(payload) > max_chars and len(run) > 1:
                middle = len(run) // 2
                pending += [run[middle:], run[:middle]]
            else:
                yield run, payload
