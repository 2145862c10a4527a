"""DuckDB over a version's table (``fencepost.tables``): a connection with the join's macros, and the join run over a
list of address texts; a version's table built from both shared files, addresses of every kind to look up in it, and
the enrichment engine's answers for them: shared by the table tests and the Spark test."""

from __future__ import annotations

import fcntl
import os
import pickle
import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pytest

from fencepost.core.space.addresses import MAPPED_FIRST, TOP, V4, V6, format_address
from fencepost.enrichment.engine import Enricher
from fencepost.enrichment.resolving import Resolver
from fencepost.enrichment.shape import Shape, parse_fields
from fencepost.enrichment.sources import FileSource
from fencepost.enrichment.table import VersionTable
from fencepost.reading.answers import Mode
from fencepost.tables.join_sql import MACROS, enrichment_query
from fencepost.tables.parquet_table import Written, write_table
from tests.support import SMALL_FILE, V4_FILE, V6_FILE, read_tsv


def connection() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(MACROS)
    return con


def address_text(bound: bytes) -> str:
    """A 16-byte bound of the table as ``GET /lookup`` writes the address: IPv4 where it is ``::ffff:a.b.c.d``."""
    value = int.from_bytes(bound, "big")
    if MAPPED_FIRST <= value <= MAPPED_FIRST | TOP[V4]:
        return format_address(V4, value - MAPPED_FIRST)
    return format_address(V6, value)


def joined(
    con: duckdb.DuckDBPyConnection, addresses: Sequence[str], table: str, selected: Sequence[str]
) -> list[tuple[Any, ...]]:
    """Each address's ``selected`` columns, by the enrichment query over ``table`` (a relation as SQL), in order."""
    con.register("fp_addresses", pa.table({"n": range(len(addresses)), "ip": list(addresses)}))
    query = enrichment_query("fp_addresses", "ip", table, selected, prefix="t.")
    names = ", ".join(f'"t.{name}"' for name in selected)
    rows = con.sql(f"SELECT {names} FROM ({query}) ORDER BY n").fetchall()
    con.unregister("fp_addresses")
    return rows


def build_version(
    folder: Path, name: str, rows: Sequence[Sequence[str]], numeric: Sequence[str] = ()
) -> tuple[FileSource, VersionTable, Path, Written]:
    """A dataset ``name`` of ``rows`` (start, end, data...) as the loader's recipe builds it, and its table's file."""
    ranges = folder / f"{name}.tsv"
    ranges.write_text("".join("\t".join(row) + "\n" for row in rows))
    source = FileSource(name, [ranges])
    table = source.table(source.info(source.live(name)))
    written = write_table(table, folder / f"{name}.parquet", numeric=numeric)
    return source, table, folder / f"{name}.parquet", written


def shared_rows() -> list[list[str]]:
    """Both shared files' rows as one dataset's (IPv4 country rows padded to the IPv6 file's columns), every 25th
    range left out so that gaps are many."""
    v4 = [[start, end, "", country, ""] for start, end, country in read_tsv(V4_FILE)]
    return [row for at, row in enumerate([*v4, *read_tsv(V6_FILE)]) if at % 25 != 7]


def shared_version(factory: pytest.TempPathFactory) -> tuple[FileSource, VersionTable, Path, Written]:
    """``build_version`` of ``shared_rows()`` as dataset ``geo`` (``col3`` numeric), built once a run: the first
    module to ask, on any xdist worker, builds it under a lock in the run's temporary folder (about 10 s of CPU);
    the others wait for it and read it back."""
    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's, shared by its workers
    folder = root / "shared-version"
    folder.mkdir(exist_ok=True)
    kept = folder / "built.pickle"
    with (root / "shared-version.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if kept.exists():
            source, table, written = pickle.loads(kept.read_bytes())
            return source, table, folder / "geo.parquet", written
        built = build_version(folder, "geo", shared_rows(), ["col3"])
        partial = folder / "built.pickle.part"
        partial.write_bytes(pickle.dumps((built[0], built[1], built[3]), protocol=pickle.HIGHEST_PROTOCOL))
        partial.rename(kept)
        return built


def mixed_addresses(table: VersionTable, count: int, seed: int = 20261128) -> list[str]:
    """Random IPv4 and IPv6 (in the allocated space, and anywhere), the edges of pieces and the addresses either side
    (in gaps too), and IPv4-mapped IPv6, in equal shares."""
    chosen = random.Random(seed)
    edges = [
        (family, min(max(value, 0), TOP[family]))
        for family, pieces in table.families.items()
        for start, end in map(pieces.span, chosen.sample(range(len(pieces)), min(5_000, len(pieces))))
        for value in (start - 1, start, end, end + 1)
    ]
    allocated = [0x2001, 0x2400, 0x2A00, 0x2C0F, 0x3FFF, 0xFE80]
    makers = [
        lambda: format_address(V4, chosen.getrandbits(32)),
        lambda: format_address(*chosen.choice(edges)),
        lambda: format_address(V6, chosen.choice(allocated) << 112 | chosen.getrandbits(chosen.choice([16, 64, 112]))),
        lambda: "::ffff:" + format_address(V4, chosen.getrandbits(32)),
        lambda: format_address(V6, chosen.getrandbits(128)),
    ]
    return [makers[at % len(makers)]() for at in range(count)]


def engine_answers(
    name: str, source: FileSource, table: VersionTable, addresses: Sequence[str], fields: str
) -> list[dict[str, Any]]:
    """The enrichment engine's answer for each address from dataset ``name`` (``{}`` where none)."""
    shape = Shape((name,), Mode.ALL, parse_fields(fields), {name: table.columns})
    batch = Enricher(shape, [Resolver(name, source)], errors_shown=False).enrich(list(addresses))
    assert not batch.invalid
    return [batch.objects[known][name] for known in batch.ids.tolist()]


# Two versions of a dataset as the as-of tests hold them: version 2 live for a day, then rolled back to version 1
T0 = datetime(2026, 11, 1)
DAY = timedelta(days=1)
HISTORY = [(1, T0, T0 + DAY), (2, T0 + DAY, T0 + 2 * DAY), (1, T0 + 2 * DAY, None)]


def live_at(instant: datetime) -> int | None:
    """The version of ``HISTORY`` live at ``instant`` (None before the first)."""
    return next((v for v, start, end in HISTORY if start <= instant and (end is None or instant < end)), None)


def two_versions(folder: Path) -> tuple[VersionTable, dict[int, Path]]:
    """The small IPv4 file as version 1 and, with one country in four changed, as version 2, each written to
    ``folder/version=<n>/`` as one table partitioned by version; the first version's table and both files."""
    rows = read_tsv(SMALL_FILE)
    changed = [[*row[:3], row[3] + "-2", row[4]] for at, row in enumerate(rows) if at % 4]
    paths, first = {}, None
    for version, version_rows in ((1, rows), (2, changed)):
        (folder / f"version={version}").mkdir()
        _, table, paths[version], _ = build_version(folder / f"version={version}", "part", version_rows, ["col3"])
        first = first or table
    assert first is not None
    return first, paths


def instants(count: int, seed: int = 20261129) -> list[datetime]:
    """``count`` instants from half a day before ``HISTORY`` to a day and a half after its last change."""
    chosen = random.Random(seed)
    return [T0 - DAY / 2 + chosen.random() * 3.5 * DAY for _ in range(count)]
