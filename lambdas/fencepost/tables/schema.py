"""The table layout of a version, declared once: the columns of its Parquet file, their types, and the file's metadata.

A row is one piece of the version (``enrichment.table.FamilyTable``) in one bucket (``tables.buckets``); a piece
spanning several buckets is written once in each. Rows are sorted by ``ip_bucket``, then by address.

- ``ip_bucket`` (int64): the bucket key (``tables.buckets.bucket_key``), what the join matches on first;
- ``ip_family`` (int8): 4 or 6;
- ``ip_start``, ``ip_end`` (binary, 16 bytes): the piece's first and last address, big-endian, IPv4 as
  ``::ffff:a.b.c.d`` (so one byte order sorts both families, as Trino's IPADDRESS does; a lookup of an IPv4-mapped
  address finds the IPv4 piece, as ``GET /lookup`` answers it);
- ``ip_start_v4``, ``ip_end_v4`` (int64): the bounds of an IPv4 piece as numbers, null for IPv6;
- ``ip_network`` (text): the piece as CIDR text where it is exactly one network, else null;
- the version's data columns, by name and in order: text, but for the columns the dataset's ``numeric`` setting
  names (``VersionInfo.numeric``): int64 when each value is an integer, else float64 when each is a number, else
  text; an empty value is null in a numeric column.

The schema's metadata (key ``fencepost``) holds the format, the data columns, the numeric ones and the bucket levels.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from fencepost.tables.buckets import LEVELS, MAX_COPIES

if TYPE_CHECKING:
    import pyarrow as pa

FORMAT: Final = "fencepost-parquet/1"
METADATA_KEY: Final = b"fencepost"
BUCKET, FAMILY, START, END = "ip_bucket", "ip_family", "ip_start", "ip_end"
START_V4, END_V4, NETWORK = "ip_start_v4", "ip_end_v4", "ip_network"
LAYOUT_COLUMNS: Final = (BUCKET, FAMILY, START, END, START_V4, END_V4, NETWORK)
TEXT, INTEGER, REAL = "string", "int64", "float64"
_INTEGER = re.compile(r"-?(0|[1-9][0-9]{0,17})")  # within int64
_REAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


class LayoutError(ValueError):
    """A version the layout cannot hold; the message says why."""


def column_type(values: Sequence[str], numeric: bool) -> str:
    """A data column's type, from all its values."""
    present = [value for value in values if value != ""]
    if not numeric or not present:
        return TEXT
    if all(_INTEGER.fullmatch(value) for value in present):
        return INTEGER
    if all(_REAL.fullmatch(value) and math.isfinite(float(value)) for value in present):
        return REAL
    return TEXT


@dataclass(frozen=True, slots=True)
class Layout:
    """The columns of one version's table: its data columns and their types."""

    columns: tuple[str, ...]
    types: tuple[str, ...]

    @classmethod
    def of(cls, columns: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[str] = ()) -> Layout:
        """The layout for data ``columns`` whose rows (each a value a column) are ``rows``."""
        clash = sorted(set(columns) & set(LAYOUT_COLUMNS))
        if clash:
            raise LayoutError(f"a data column is named {clash[0]!r}, as a column of the table layout is")
        types = tuple(
            column_type([row[index] for row in rows], column in numeric) for index, column in enumerate(columns)
        )
        return cls(tuple(columns), types)

    @property
    def numeric(self) -> tuple[str, ...]:
        return tuple(column for column, kind in zip(self.columns, self.types, strict=True) if kind != TEXT)

    def metadata(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "columns": list(self.columns),
            "numeric": list(self.numeric),
            "levels": {str(family): list(lengths) for family, lengths in LEVELS.items()},
            "max_copies": MAX_COPIES,
        }

    def schema(self) -> pa.Schema:
        import pyarrow as pa

        fields = [
            pa.field(BUCKET, pa.int64(), nullable=False),
            pa.field(FAMILY, pa.int8(), nullable=False),
            pa.field(START, pa.binary(), nullable=False),
            pa.field(END, pa.binary(), nullable=False),
            pa.field(START_V4, pa.int64()),
            pa.field(END_V4, pa.int64()),
            pa.field(NETWORK, pa.string()),
        ]
        fields += [pa.field(name, pa.type_for_alias(kind)) for name, kind in zip(self.columns, self.types, strict=True)]
        return pa.schema(fields, metadata={METADATA_KEY: json.dumps(self.metadata()).encode()})

    def data_arrays(self, rows: Sequence[Sequence[str]]) -> list[pa.Array]:
        """Each data column of ``rows`` as one array, in its type (rows are then taken from it by index)."""
        import pyarrow as pa

        arrays = []
        for index, kind in enumerate(self.types):
            values = [row[index] for row in rows]
            if kind == TEXT:
                arrays.append(pa.array(values, pa.string()))
                continue
            convert = int if kind == INTEGER else float
            arrays.append(pa.array([convert(value) if value else None for value in values], pa.type_for_alias(kind)))
        return arrays
