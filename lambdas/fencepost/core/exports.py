"""A whole version as a file: its flattened pieces, in address order (IPv4, then IPv6), as CSV, as CIDR networks,
or as a MaxMind DB (``core.formats.mmdb.output``).

- ``csv``: a header ``start,end,<columns>``, then one row per piece, its bounds in canonical text. Uploaded into a
  folder it builds a version with the same pieces and answers (the ``start,end`` layout, a header).
- ``cidr``: a header ``network<TAB><columns>``, then one line per CIDR network of each piece (the fewest that make
  it up), with the piece's values, tab separated (a tab or a line break inside a value is written as a space).
  Uploaded, it builds the same answers (the ``network`` layout).

Each is written a line at a time, so an export never holds more than the lines of one part of its upload.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from fencepost.core.addresses import format_address
from fencepost.core.networks import cidrs
from fencepost.core.objects import building_key, export_key

Piece = tuple[int, int, int, Sequence[str]]  # family, first, last, values
STALE_MARKER_SECONDS: Final = 900  # an export's "being written" marker older than this is a writer that died
LINK_SECONDS: Final = 900  # how long the link to a written export works


@dataclass(frozen=True, slots=True)
class ExportFormat:
    name: str
    extension: str
    content_type: str


FORMATS: Final = {
    "csv": ExportFormat("csv", "csv", "text/csv; charset=utf-8"),
    "cidr": ExportFormat("cidr", "tsv", "text/tab-separated-values; charset=utf-8"),
    "mmdb": ExportFormat("mmdb", "mmdb", "application/octet-stream"),
}


def kept_keys(dataset: str, version: int) -> list[str]:
    """Every object a version's exports may have left in the bucket (deleted with the version)."""
    keys = [export_key(dataset, version, chosen.extension) for chosen in FORMATS.values()]
    return [*keys, *map(building_key, keys)]


def csv_lines(columns: Sequence[str], pieces: Iterable[Piece]) -> Iterator[str]:
    """The CSV export's lines, each ending in a newline."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["start", "end", *columns])
    yield _taken(buffer)
    for family, first, last, values in pieces:
        writer.writerow([format_address(family, first), format_address(family, last), *values])
        yield _taken(buffer)


def cidr_lines(columns: Sequence[str], pieces: Iterable[Piece]) -> Iterator[str]:
    """The CIDR export's lines, each ending in a newline."""
    yield "\t".join(["network", *map(_cell, columns)]) + "\n"
    for family, first, last, values in pieces:
        tail = "".join("\t" + _cell(value) for value in values)
        for network in cidrs(family, first, last):
            yield f"{network}{tail}\n"


def _cell(value: str) -> str:
    return value.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def _taken(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def encoded(lines: Iterable[str], part_bytes: int) -> Iterator[bytes]:
    """The lines as UTF-8, in parts of at least ``part_bytes`` (the last may be smaller)."""
    held: list[bytes] = []
    size = 0
    for line in lines:
        data = line.encode()
        held.append(data)
        size += len(data)
        if size >= part_bytes:
            yield b"".join(held)
            held, size = [], 0
    if held or size == 0:
        yield b"".join(held)
