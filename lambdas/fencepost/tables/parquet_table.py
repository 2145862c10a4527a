"""A version written as one Parquet file in the table layout (``tables.schema``), streamed: the pieces are expanded
into their buckets ``BATCH_PIECES`` at a time and written as record batches, a row group each ``ROW_GROUP_ROWS`` rows
(small enough for engines to skip the row groups a bucket or an address is not in), compressed with zstd. Memory
holds the version's arrays (as ``enrichment.table.VersionTable`` does) and one batch, never the whole output.

pyarrow is imported when a file is written: no Lambda function writes a table.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Final

import numpy as np
import numpy.typing as npt

from fencepost.core.space.addresses import V4
from fencepost.core.space.networks import block_text
from fencepost.enrichment.table import FamilyTable, VersionTable
from fencepost.tables.aliased import table_families
from fencepost.tables.buckets import LEVELS, copies, levels, tops
from fencepost.tables.schema import BUCKET, START, Layout

if TYPE_CHECKING:
    import pyarrow as pa

BATCH_PIECES: Final = 65_536
ROW_GROUP_ROWS: Final = 65_536
MAPPED: Final = np.array([0] * 10 + [255, 255], dtype=np.uint8)  # the first 12 bytes of ::ffff:a.b.c.d


@dataclass(frozen=True, slots=True)
class Written:
    """What a file holds: its rows, the pieces they are copies of, and its row groups."""

    rows: int
    pieces: int
    row_groups: int


def wide(family: int, bounds: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """Bounds as rows of 16 big-endian bytes, IPv4 as ``::ffff:a.b.c.d``."""
    if family != V4:
        return np.ascontiguousarray(bounds).view(np.uint8).reshape(-1, 16)
    octets = np.empty((len(bounds), 16), dtype=np.uint8)
    octets[:, :12] = MAPPED
    octets[:, 12:] = bounds.astype(">u4").view(np.uint8).reshape(-1, 4)
    return octets


def networks(family: int, starts: npt.NDArray[np.uint8], ends: npt.NDArray[np.uint8]) -> list[str | None]:
    """Each piece as CIDR text where it is one network (its bounds differ in low bits only, all clear in the start
    and all set in the end), else None; bounds as ``wide`` makes them."""
    differ = starts ^ ends
    low_mask = ((differ[:, :-1] == 0) | (differ[:, 1:] == 255)).all(axis=1)
    low_mask &= ((differ.astype(np.uint16) & (differ.astype(np.uint16) + 1)) == 0).all(axis=1)
    one = low_mask & ((starts & differ) == 0).all(axis=1)
    lengths = 128 - np.unpackbits(differ, axis=1).sum(axis=1, dtype=np.int64)
    found: list[str | None] = [None] * len(starts)
    skip = 12 if family == V4 else 0
    for index in np.flatnonzero(one).tolist():
        first = int.from_bytes(starts[index, skip:].tobytes(), "big")
        found[index] = block_text(family, first, int(lengths[index]) - 8 * skip)
    return found


def _binary(octets: npt.NDArray[np.uint8]) -> pa.Array:
    import pyarrow as pa

    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(16), len(octets), [None, pa.py_buffer(octets.tobytes())])
    return fixed.cast(pa.binary())


def _levels(table: FamilyTable) -> npt.NDArray[np.uint8]:
    """Each piece's level, worked out ``BATCH_PIECES`` at a time: a byte a piece is all the writer holds of them."""
    family, count = table.family, len(table.starts)
    parts = [
        levels(
            family, tops(family, table.starts[at : at + BATCH_PIECES]), tops(family, table.ends[at : at + BATCH_PIECES])
        )
        for at in range(0, count, BATCH_PIECES)
    ]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint8)


def _batches(table: FamilyTable, layout: Layout, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """One family's rows, in key order, ``BATCH_PIECES`` pieces at a time."""
    import pyarrow as pa

    family = table.family
    data = layout.data_arrays(table.values)
    chosen = _levels(table)
    for length in sorted(LEVELS[family]):  # keys grow with the length
        at_level = np.flatnonzero(chosen == length)
        for cut in range(0, len(at_level), BATCH_PIECES):
            pieces = at_level[cut : cut + BATCH_PIECES]
            copied, keys = copies(family, length, tops(family, table.starts[pieces]), tops(family, table.ends[pieces]))
            rows = pieces[copied]
            low, high = wide(family, table.starts[pieces]), wide(family, table.ends[pieces])
            shown = pa.array(networks(family, low, high), pa.string()).take(pa.array(copied))
            v4 = [pa.nulls(len(rows), pa.int64())] * 2
            if family == V4:
                v4 = [pa.array(table.starts[rows].astype(np.int64)), pa.array(table.ends[rows].astype(np.int64))]
            ids = pa.array(table.rows[rows].astype(np.int64))
            columns = [
                pa.array(keys),
                pa.array(np.full(len(rows), family, dtype=np.int8)),
                _binary(low[copied]),
                _binary(high[copied]),
                *v4,
                shown,
                *(array.take(ids) for array in data),
            ]
            yield pa.RecordBatch.from_arrays(columns, schema=schema)


def _row_groups(batches: Iterator[pa.RecordBatch], size: int) -> Iterator[pa.RecordBatch]:
    """The batches cut and joined into batches of ``size`` rows (the last one shorter)."""
    import pyarrow as pa

    held: list[pa.RecordBatch] = []
    count = 0
    for batch in batches:
        held.append(batch)
        count += batch.num_rows
        while count >= size:
            joined = pa.Table.from_batches(held).combine_chunks().to_batches()[0]
            yield joined.slice(0, size)
            rest = joined.slice(size)
            held, count = ([rest] if rest.num_rows else []), rest.num_rows
    if count:
        yield pa.Table.from_batches(held).combine_chunks().to_batches()[0]


def write_table(
    version: VersionTable,
    sink: str | Path | BinaryIO,
    numeric: Sequence[str] = (),
    row_group_rows: int = ROW_GROUP_ROWS,
) -> Written:
    """Write ``version`` to ``sink`` (a path or a binary file) in the table layout; ``numeric``: the columns the
    dataset declares numeric."""
    import pyarrow.parquet as pq

    families = table_families(version)  # a version's aliases: its IPv4 pieces again under each (tables.aliased)
    layout = Layout.of(version.columns, [row for table in families for row in table.values], numeric)
    schema = layout.schema()
    names = schema.names
    sorting = [pq.SortingColumn(names.index(BUCKET)), pq.SortingColumn(names.index(START))]
    rows = groups = 0
    with pq.ParquetWriter(sink, schema, compression="zstd", sorting_columns=sorting) as writer:
        for table in families:
            for batch in _row_groups(_batches(table, layout, schema), row_group_rows):
                writer.write_batch(batch, row_group_size=row_group_rows)
                rows += batch.num_rows
                groups += 1
    return Written(rows, sum(len(table) for table in families), groups)
