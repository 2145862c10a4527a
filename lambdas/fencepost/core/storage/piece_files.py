"""The pieces file a build keeps (``core.storage.objects.pieces_key``): one line per stored piece, in address order
(IPv4, then IPv6), ``"<family>\\t<start hex>\\t<end hex>\\t<hash>\\n"``, the hash of what a lookup there answers (its
metadata and the range it reports). Written from a build's pieces (``piece_lines``), or made again from a version's
items read back from the table (``stored_lines``): the same lines either way. ``core.versions.diffs`` compares two of
them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Final, NamedTuple

from fencepost.core.space.addresses import FAMILIES
from fencepost.core.storage.items import Hit
from fencepost.core.versions.build import FamilyRanges, Pieces

HASH_BYTES: Final = 8
_LINE: Final = re.compile(r"([46])\t([0-9a-f]{1,32})\t([0-9a-f]{1,32})\t([0-9a-f]{" + str(2 * HASH_BYTES) + r"})\n?")


def answer_hash(values: tuple[str, ...], range_span: tuple[int, int]) -> str:
    """A short stable hash (16 hex digits) of a lookup's answer: its metadata and the range it reports.

    JSON with ASCII escapes encodes the tuple unambiguously (no separator can be forged by a value), and the same on
    every Python version.
    """
    text = json.dumps([range_span[0], range_span[1], *values], separators=(",", ":"))
    return hashlib.blake2b(text.encode("ascii"), digest_size=HASH_BYTES).hexdigest()


class PieceLine(NamedTuple):
    """One stored piece as a build's pieces file gives it."""

    family: int
    start: int
    end: int
    hash: str


def piece_lines(families: Mapping[int, FamilyRanges], pieces: Mapping[int, Pieces]) -> Iterator[str]:
    """``"<family>\\t<start hex>\\t<end hex>\\t<hash>\\n"`` per stored piece: IPv4 then IPv6, in address order.

    ``pieces[family]`` are the pieces of ``families[family]`` (``FamilyRanges.pieces``); a family missing from
    ``pieces`` has none.
    """
    for family in FAMILIES:
        if family not in pieces:
            continue
        ranges = families[family]
        cached: tuple[int, str] | None = None  # consecutive pieces often share a source (a range split by a nested one)
        for start, end, source in pieces[family]:
            if cached is None or cached[0] != source:
                span = (ranges.starts[source], ranges.ends[source])
                cached = source, answer_hash(ranges.values[source], span)
            yield _line(family, start, end, cached[1])


def stored_lines(hits: Iterable[tuple[int, Hit]]) -> Iterator[str]:
    """A version's pieces file made again from its items, read back in address order (IPv4, then IPv6): the same
    lines its build wrote, for an item keeps the piece's bounds, its range's and its metadata."""
    for family, hit in hits:
        yield _line(family, hit.start, hit.end, answer_hash(tuple(hit.values), (hit.range_start, hit.range_end)))


def parse_piece_line(line: str) -> PieceLine:
    """The inverse of ``piece_lines`` for one line (its newline optional); ValueError on anything else."""
    match = _LINE.fullmatch(line)
    if match is None:
        raise ValueError(
            f"malformed piece line {line[:200]!r}: expected family, start and end in lowercase hex, and a "
            f"{2 * HASH_BYTES}-digit hash, separated by tabs"
        )
    family, start, end, digest = match.groups()
    return PieceLine(int(family), int(start, 16), int(end, 16), digest)


def _line(family: int, start: int, end: int, digest: str) -> str:
    return f"{family}\t{start:x}\t{end:x}\t{digest}\n"
