"""How much one build may read, and how large a version's directory may be: the loader's limits.

The function's limits come from its environment (``fencepost.settings``); a folder's ``_settings.json`` may lower
any of them for its own builds (``"limits": {"max_build_rows": 1000}``), never raise them. Crossing one fails the
load with a report that names the object and the line, within seconds: the limits bound the loader's memory and
time, whatever a file holds (a small gzip can expand to gigabytes, one line, or millions of empty lines).

Defaults, from the largest files the loader is known to load (measured): the longest line of the shared files is
255 bytes; the largest object is the synthetic 5M-row file of ``make bench`` (199,366,098 bytes, 5,000,000 rows;
the shared files are 13.9 MB decompressed each); the shared IPv6 file's directory spans 682 partitions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

DEFAULT_MAX_LINE_BYTES: Final = 1 << 20  # 1 MiB: no longer line can hold a row whose item fits 400 KB
DEFAULT_MAX_OBJECT_BYTES: Final = 512 << 20  # 2.7x the synthetic 5M-row file
DEFAULT_MAX_BUILD_BYTES: Final = 512 << 20  # planning memory grows ~3 bytes per byte of metadata
DEFAULT_MAX_BUILD_ROWS: Final = 10_000_000  # 2x the synthetic file; ~2.6 GB of the loader's 3,008 MB
DEFAULT_MAX_DIRECTORY_PARTITIONS: Final = 50_000  # 73x the shared IPv6 file; ~4 MB per version a lookup caches
DEFAULT_MAX_DOCUMENT_BYTES: Final = 64 << 20  # a JSON document read whole (AWS's ip-ranges.json: about 2 MB)
# A keyed dataset's table is held whole, by the loader and by every lookup container that joins it: the AS-names
# lists hold about 120,000 rows, about 33 MB once decoded (docs/keyed.md#limits, measured)
# Joined whole within the lookup's KEYED_CACHE_BYTES (96 MB): about 310 bytes a key (docs/keyed.md#limits)
DEFAULT_MAX_KEYED_ROWS: Final = 300_000
DEFAULT_MAX_COLUMNS: Final = (
    1_000  # real files have tens: IP2Location DB26 has 26 fields, GeoIP2 City records a few dozen
)

# The environment variable that sets each limit (and the name a folder's settings use for it: the field's name).
ENVIRONMENT: Final = {
    "max_line_bytes": "MAX_LINE_BYTES",
    "max_object_bytes": "MAX_OBJECT_BYTES",
    "max_build_bytes": "MAX_BUILD_BYTES",
    "max_build_rows": "MAX_BUILD_ROWS",
    "max_directory_partitions": "MAX_DIRECTORY_PARTITIONS",
    "max_columns": "MAX_COLUMNS",
    "max_document_bytes": "MAX_DOCUMENT_BYTES",
    "max_keyed_rows": "MAX_KEYED_ROWS",
}


# The values each limit may be set to, by the environment or the stack's context (which sets the environment).
BOUNDS: Final = {
    "max_line_bytes": (1024, 64 << 20),
    "max_object_bytes": (1024, 64 << 30),
    "max_build_bytes": (1024, 64 << 30),
    "max_build_rows": (1, 1_000_000_000),
    "max_directory_partitions": (1, (1 << 20) + 256),  # every /20 of IPv6 and every /8 of IPv4
    "max_columns": (1, 16_384),  # a version's column names take at most 64 KB (core.storage.items): 16,384 of 1 byte
    "max_document_bytes": (1024, 1 << 30),  # parsed whole: about 5 bytes of memory a byte of JSON
    "max_keyed_rows": (1, 20_000_000),  # a table every joining lookup container holds whole
}


class LimitError(ValueError):
    """A folder's settings ask for more than the function allows."""


@dataclass(frozen=True, slots=True)
class FolderLimits:
    """The limits a folder's ``_settings.json`` lowers, by name, and where it said so."""

    source: str = ""
    values: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Limits:
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES  # one line, its line ending included
    max_object_bytes: int = DEFAULT_MAX_OBJECT_BYTES  # one object, decompressed (any object the loader reads)
    max_build_bytes: int = DEFAULT_MAX_BUILD_BYTES  # every object of a build together, decompressed
    max_build_rows: int = DEFAULT_MAX_BUILD_ROWS  # lines read by a build (blank lines, headers, bad rows count)
    max_directory_partitions: int = DEFAULT_MAX_DIRECTORY_PARTITIONS  # partitions a version's directory lists
    max_columns: int = DEFAULT_MAX_COLUMNS  # metadata columns of a version
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES  # a JSON document (a cloud's list of ranges), read whole
    max_keyed_rows: int = DEFAULT_MAX_KEYED_ROWS  # rows (keys) of a keyed dataset's version, held whole
    lowered_by: str = field(default="", compare=False)  # the settings object that lowered some of them
    lowered: frozenset[str] = field(default=frozenset(), compare=False)

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> Limits:
        """The limits named in ``values`` (by field name), the defaults for the others."""
        return dataclasses.replace(cls(), **values)

    def environment(self) -> dict[str, str]:
        """The limits as the function's environment variables."""
        return {variable: str(getattr(self, name)) for name, variable in ENVIRONMENT.items()}

    def lowered_for(self, folder: FolderLimits) -> Limits:
        """These limits as the folder lowers them; raises ``LimitError`` for a value above the function's."""
        for name, value in folder.values:
            ceiling = getattr(self, name)
            if value > ceiling:
                raise LimitError(
                    f"{folder.source}: limits.{name} is {value:,}, above the loader's {ENVIRONMENT[name]} of "
                    f"{ceiling:,}: a folder's settings may lower a limit, never raise it"
                )
        if not folder.values:
            return self
        names = frozenset(name for name, _ in folder.values)
        return dataclasses.replace(self, **dict(folder.values), lowered_by=folder.source, lowered=names)

    def source(self, name: str) -> str:
        """Which setting set a limit, for a message: the environment variable or the folder's settings."""
        if name in self.lowered:
            return f"limits.{name} of {self.lowered_by}"
        return ENVIRONMENT[name]

    def line_ceiling(self, document: bool) -> int:
        """The longest line an object may hold: ``max_line_bytes``, but as much as ``max_document_bytes`` in an
        object that opens a JSON object (a minified document is one line, bounded as a document: the document
        reader holds it to ``max_document_bytes``, a line format to ``max_line_bytes``)."""
        return max(self.max_line_bytes, self.max_document_bytes) if document else self.max_line_bytes

    # -- what crossing each limit says -------------------------------------------------------------------------

    def line_too_long_in(self, document: bool) -> str:
        """What crossing ``line_ceiling(document)`` says."""
        if document and self.max_document_bytes >= self.max_line_bytes:
            return self.document_too_large()
        return self.line_too_long()

    def document_too_large(self) -> str:
        return (
            f"a JSON document larger than {self.max_document_bytes:,} bytes ({self.source('max_document_bytes')}) "
            "is not read"
        )

    def line_too_long(self) -> str:
        return (
            f"the line is longer than {self.max_line_bytes:,} bytes ({self.source('max_line_bytes')}): "
            "no row of a range file is that long (its metadata must fit a 400 KB item)"
        )

    def object_too_large(self) -> str:
        return (
            f"the object holds more than {self.max_object_bytes:,} bytes, decompressed "
            f"({self.source('max_object_bytes')}): split it into smaller objects"
        )

    def build_too_large(self) -> str:
        return (
            f"the dataset's objects hold more than {self.max_build_bytes:,} bytes together, decompressed "
            f"({self.source('max_build_bytes')}): split the dataset into several folders"
        )

    def too_many_rows(self) -> str:
        return (
            f"the dataset's objects hold more than {self.max_build_rows:,} rows together "
            f"({self.source('max_build_rows')}; every line counts): split the dataset into several folders"
        )

    def too_many_keys(self) -> str:
        return (
            f"the dataset's objects hold more than {self.max_keyed_rows:,} keys ({self.source('max_keyed_rows')}): "
            "a keyed dataset's table is held whole by the loader and by every lookup that joins it"
        )

    def too_many_columns(self) -> str:
        return (
            f"the data has more than {self.max_columns:,} metadata columns ({self.source('max_columns')}): "
            'choose the columns to keep with "columns" in _settings.json'
        )

    def records_too_large(self, records: int, columns: int, room: int) -> str:
        return (
            f"the file's {records:,} distinct records, as rows of {columns:,} columns (8 bytes a cell, plus their "
            f"text), would take more than the {room:,} bytes left of {self.max_build_bytes:,} "
            f'({self.source("max_build_bytes")}): choose the columns to keep with "columns" in _settings.json'
        )

    def directory_too_large(self, partitions: int) -> str:
        return (
            f"the version's ranges start in {partitions:,} partitions (/8 blocks of IPv4, /20 blocks of IPv6); "
            f"a version may span at most {self.max_directory_partitions:,} "
            f"({self.source('max_directory_partitions')}): every lookup container holds this directory in memory"
        )
