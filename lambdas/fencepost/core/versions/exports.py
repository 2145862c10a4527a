"""A whole version as a file: its flattened pieces, in address order (IPv4, then IPv6), as CSV, as CIDR networks,
or as a MaxMind DB (``core.versions.mmdb_export``).

- ``csv``: a header ``start,end,<columns>``, then one row per piece, its bounds in canonical text. Uploaded into a
  folder it builds a version with the same pieces and answers (the ``start,end`` layout, a header).
- ``cidr``: a header ``network<TAB><columns>``, then one line per CIDR network of each piece (the fewest that make
  it up), with the piece's values, tab separated (a tab or a line break inside a value is written as a space).
  Uploaded, it builds the same answers (the ``network`` layout).

Each is written a line at a time, so an export never holds more than the lines of one part of its upload.

Both are opened by spreadsheets, which run a cell starting with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage
return before one) as a formula: ``=HYPERLINK(...)`` in a publisher's data would run on the reader's machine. Such a
cell is written with a ``'`` before it, as OWASP's "CSV Injection" advises, unless it is a plain number (``-33.86``
is a latitude, not a formula); a folder's ``"export_raw_cells": true`` writes every cell as it is.

- ``mmdb:<profile>``: a MaxMind DB in a GeoLite2 profile's record shape (``core.versions.mmdb_profiles``), kept beside
  the others as ``<version>.<profile>.mmdb``; asked for as ``format=mmdb&profile=<profile>``.
- ``parquet``: the version in the table layout (``tables.schema``), written by the tables function
  (``handlers/tables.py``) to ``_tables/<dataset>/version=<n>/`` (``core.storage.objects.parquet_key``), where the
  dataset's Glue tables read it; its marker stays under ``_exports/``, out of the table's folder.

An export is asked for once: whoever asks first (the API, or the loader for a folder's ``"exports"``) puts a marker
beside it, only if there is none (``Marker``); the writer takes it over before writing, and deletes it once written.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from fencepost.core.space.addresses import format_address
from fencepost.core.space.networks import cidrs
from fencepost.core.storage.objects import building_key, export_key, parquet_columns_key, parquet_key
from fencepost.core.versions.mmdb_profiles import MMDB_PREFIX, PROFILES

Piece = tuple[int, int, int, Sequence[str]]  # family, first, last, values
STALE_MARKER_SECONDS: Final = 900  # a marker older than this is a request lost or a writer that died: asked again
LINK_SECONDS: Final = 900  # how long the link to a written export works
REQUESTED: Final = "requested"  # a marker's text: asked for, no writer yet
WRITING: Final = "writing"  # a writer took it over
_FORMULA: Final = re.compile(r"[\t\r]|[ ]*[=+\-@]")  # OWASP's list, and one behind spaces a reader may trim
_NUMBER: Final = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


@dataclass(frozen=True, slots=True)
class Marker:
    """The marker beside an export: what it says (``REQUESTED`` or ``WRITING``), its ETag and when it was written."""

    state: str
    etag: str
    written: float

    def stale(self, now: float) -> bool:
        return now - self.written >= STALE_MARKER_SECONDS


def should_ask(marker: Marker | None, now: float) -> bool:
    """Whether a request for the export should ask the loader (nobody asked, or the request or its writer is lost)."""
    return marker is None or marker.stale(now)


def may_write(marker: Marker | None, now: float) -> bool:
    """Whether a writer may take the export over: no writer holds it, or the one that did has died."""
    return marker is None or marker.state != WRITING or marker.stale(now)


def safe_cell(value: str) -> str:
    """A cell a spreadsheet shows as text: ``'`` before one it would run as a formula (a plain number is left)."""
    return "'" + value if _FORMULA.match(value) and not _NUMBER.fullmatch(value) else value


@dataclass(frozen=True, slots=True)
class ExportFormat:
    name: str  # as messages and a folder's "exports" name it
    extension: str
    content_type: str
    profile: str | None = None  # a GeoLite2 profile of a MaxMind DB (core.versions.mmdb_profiles)

    @property
    def mmdb(self) -> bool:
        """Whether it is a MaxMind DB, built in memory (``MMDB_EXPORT_MAX_RANGES``)."""
        return self.extension.endswith("mmdb")


FORMATS: Final = {
    "csv": ExportFormat("csv", "csv", "text/csv; charset=utf-8"),
    "cidr": ExportFormat("cidr", "tsv", "text/tab-separated-values; charset=utf-8"),
    "mmdb": ExportFormat("mmdb", "mmdb", "application/octet-stream"),
    "parquet": ExportFormat("parquet", "parquet", "application/vnd.apache.parquet"),
}
PROFILED: Final = {
    f"{MMDB_PREFIX}{name}": ExportFormat(f"{MMDB_PREFIX}{name}", f"{name}.mmdb", "application/octet-stream", name)
    for name in PROFILES
}
EXPORTABLE: Final = {**FORMATS, **PROFILED}  # every export a version may have, by the name messages give it


def export_object(dataset: str, version: int, chosen: ExportFormat) -> str:
    """Where a version's export of ``chosen`` is kept."""
    if chosen.name == "parquet":
        return parquet_key(dataset, version)
    return export_key(dataset, version, chosen.extension)


def marker_object(dataset: str, version: int, chosen: ExportFormat) -> str:
    """The marker beside an export while it is asked for or written (under ``_exports/`` for every format)."""
    return building_key(export_key(dataset, version, chosen.extension))


def kept_keys(dataset: str, version: int) -> list[str]:
    """Every object a version's exports may have left in the bucket (deleted with the version)."""
    keys = [export_object(dataset, version, chosen) for chosen in EXPORTABLE.values()]
    markers = [marker_object(dataset, version, chosen) for chosen in EXPORTABLE.values()]
    return [*keys, *markers, parquet_columns_key(dataset, version)]


def csv_lines(columns: Sequence[str], pieces: Iterable[Piece], *, raw: bool = False) -> Iterator[str]:
    """The CSV export's lines, each ending in a newline (``raw``: cells a spreadsheet would run left as they are)."""
    cell = str if raw else safe_cell
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["start", "end", *map(cell, columns)])
    yield _taken(buffer)
    for family, first, last, values in pieces:
        writer.writerow([format_address(family, first), format_address(family, last), *map(cell, values)])
        yield _taken(buffer)


def cidr_lines(columns: Sequence[str], pieces: Iterable[Piece], *, raw: bool = False) -> Iterator[str]:
    """The CIDR export's lines, each ending in a newline (``raw``: as ``csv_lines``)."""
    cell = _cell if raw else (lambda value: safe_cell(_cell(value)))
    yield "\t".join(["network", *map(cell, columns)]) + "\n"
    for family, first, last, values in pieces:
        tail = "".join("\t" + cell(value) for value in values)
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
