"""A DuckDB connection with every dataset attached (``sql.local_tables``): for each, under its SQL name
(``sql.naming``),

- ``<name>``: its live version's table (a view over the cached Parquet file, ``tables.schema``'s layout);
- ``<name>_versions``: every kept version's rows, with a ``version`` column;
- ``<name>_history``: each kept version's periods live (``version``, ``live_from``, ``live_until``: NULL while live);

the address macros (``tables.join_sql.MACROS``), and two table macros made from ``tables.join_sql.enrichment_query``:

- ``fp_enrich(relation, column, dataset)``: every row of ``relation`` (a table, a view or a file's path) with the data
  columns of the live version's piece that holds its ``column`` address, named ``<dataset>_<column>``;
- ``fp_enrich_as_of(relation, column, time_column, dataset)``: the same from the version live at each row's own time.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from fencepost.errors import ServiceError
from fencepost.tables.join_sql import MACROS, enrichment_query
from fencepost.tables.schema import FORMAT, LAYOUT_COLUMNS, NETWORK, LayoutError
from sql.local_tables import Dataset, Version, cached_table
from sql.naming import sql_names

_SOURCE, _COLUMN, _TIME = "{fp_source}", "{fp_column}", "{fp_time}"


@dataclass(frozen=True, slots=True)
class Attached:
    """A dataset as the session holds it."""

    dataset: str
    name: str  # its SQL name
    live: int
    versions: tuple[int, ...]
    columns: tuple[str, ...]  # its data columns


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _instant(seconds: float | None) -> str:
    if seconds is None:
        return "NULL"
    return f"TIMESTAMPTZ {_literal(datetime.fromtimestamp(seconds, UTC).isoformat())}"


def _tables(versions: Sequence[Version], folder: Path) -> dict[int, Path]:
    """Each version's cached table; a version whose table cannot be had is left out, with a line saying why."""
    found = {}
    for version in versions:
        try:
            found[version.version] = cached_table(version, folder)
        except ServiceError as error:
            print(f"sql: {version.dataset} version {version.version} left out: {error.message}", file=sys.stderr)
        except LayoutError as error:  # a version the layout cannot hold (a data column named as a layout column)
            print(f"sql: {version.dataset} version {version.version} left out: {error}", file=sys.stderr)
    return found


def _data_columns(con: duckdb.DuckDBPyConnection, path: Path) -> tuple[str, ...]:
    names = [row[0] for row in con.execute("SELECT name FROM parquet_schema(?)", [str(path)]).fetchall()]
    return tuple(name for name in names[1:] if name not in LAYOUT_COLUMNS)  # the first row is the schema's root


def _create(con: duckdb.DuckDBPyConnection, dataset: Dataset, name: str, tables: dict[int, Path]) -> Attached:
    con.execute(f'CREATE OR REPLACE VIEW "{name}" AS SELECT * FROM read_parquet({_literal(str(tables[dataset.live]))})')
    union = " UNION ALL BY NAME ".join(
        f"SELECT {number} AS version, * FROM read_parquet({_literal(str(path))})" for number, path in tables.items()
    )
    con.execute(f'CREATE OR REPLACE VIEW "{name}_versions" AS {union}')
    periods = [
        f"({version.version}, {_instant(period.start)}, {_instant(period.end)})"
        for version in dataset.versions
        if version.version in tables
        for period in version.periods
    ]
    con.execute(
        f'CREATE OR REPLACE TABLE "{name}_history" AS SELECT version::INTEGER AS version, '
        "live_from::TIMESTAMPTZ AS live_from, live_until::TIMESTAMPTZ AS live_until "
        f"FROM (VALUES {', '.join(periods)}) AS h(version, live_from, live_until) ORDER BY live_from"
    )
    columns = _data_columns(con, tables[dataset.live])
    return Attached(dataset.name, name, dataset.live, tuple(tables), columns)


def _addresses(time: bool = False) -> str:
    """The input relation with its address (and time) as fixed columns: the macros' arguments go in as text."""
    at = f", CAST(struct_extract(fp_row, '{_TIME}') AS TIMESTAMPTZ) AS fp_at" if time else ""
    return (
        f"(SELECT fp_row.*, CAST(struct_extract(fp_row, '{_COLUMN}') AS VARCHAR) AS fp_address{at} "
        f"FROM query_table('{_SOURCE}') AS fp_row)"
    )


def _live_sql(table: Attached) -> str:
    query = enrichment_query(
        _addresses(), "fp_address", f'"{table.name}"', (NETWORK, *table.columns), prefix=f"{table.name}_"
    )
    return f"SELECT * EXCLUDE (fp_address) FROM ({query})"


def _as_of_sql(table: Attached) -> str:
    """Each version's rows (those whose time falls in one of its periods) joined with it; the rows no kept version
    answers (a time before the first, in a version no longer kept, or NULL) with NULL columns."""
    within = "a.fp_at >= h.live_from AND (h.live_until IS NULL OR a.fp_at < h.live_until)"
    parts = [
        f"SELECT a.* EXCLUDE (fp_address, fp_at) FROM {_addresses(time=True)} AS a WHERE NOT EXISTS "
        f'(SELECT 1 FROM "{table.name}_history" AS h WHERE {within})'
    ]
    for number in table.versions:
        rows = (
            f'(SELECT a.* FROM {_addresses(time=True)} AS a JOIN "{table.name}_history" AS h '
            f"ON h.version = {number} AND {within})"
        )
        version = f'(SELECT * FROM "{table.name}_versions" WHERE version = {number})'
        query = enrichment_query(rows, "fp_address", version, (NETWORK, *table.columns), prefix=f"{table.name}_")
        parts.append(f"SELECT * EXCLUDE (fp_address, fp_at), {number} AS {table.name}_version FROM ({query})")
    return " UNION ALL BY NAME ".join(parts)


def _dispatch(attached: Sequence[Attached], sql_of: dict[str, str]) -> str:
    """A scalar macro giving the query text for a dataset (by its name or SQL name), the relation, column and time
    put in; a table macro runs it with ``query`` (the text is a constant when the macro is bound)."""
    cases = " ".join(
        f"WHEN {_literal(key)} THEN {_literal(sql_of[table.name])}"
        for table in attached
        for key in dict.fromkeys([table.name, table.dataset])
    )
    text = f"CASE ds {cases} ELSE error('no dataset named ' || ds) END"
    for placeholder, argument in ((_SOURCE, "src"), (_COLUMN, "col"), (_TIME, "tcol")):
        text = f"replace({text}, {_literal(placeholder)}, replace({argument}, '''', ''''''))"
    return text


def _enrich_macros(con: duckdb.DuckDBPyConnection, attached: Sequence[Attached]) -> None:
    live = {table.name: _live_sql(table) for table in attached}
    as_of = {table.name: _as_of_sql(table) for table in attached}
    con.execute(f"CREATE OR REPLACE MACRO fp_enrich_sql(src, col, ds, tcol) AS {_dispatch(attached, live)}")
    con.execute(f"CREATE OR REPLACE MACRO fp_as_of_sql(src, col, ds, tcol) AS {_dispatch(attached, as_of)}")
    con.execute("CREATE OR REPLACE MACRO fp_enrich(src, col, ds) AS TABLE FROM query(fp_enrich_sql(src, col, ds, ''))")
    con.execute(
        "CREATE OR REPLACE MACRO fp_enrich_as_of(src, col, tcol, ds) AS TABLE "
        "FROM query(fp_as_of_sql(src, col, ds, tcol))"
    )


def open_session(
    datasets: Sequence[Dataset], folder: Path, database: str = ":memory:"
) -> tuple[duckdb.DuckDBPyConnection, list[Attached]]:
    """A connection with ``datasets`` attached, their tables written to ``folder`` where not cached yet."""
    con = duckdb.connect(database)
    con.execute("SET TimeZone = 'UTC'")  # a time without a zone is UTC, as GET /lookup's as_of reads it
    con.execute("SET python_enable_replacements = false")  # a name is a table or a file, never a Python variable
    con.execute(MACROS)
    reserved = "SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category = 'reserved'"
    keywords = [row[0] for row in con.execute(reserved).fetchall()]
    names = sql_names([dataset.name for dataset in datasets], keywords)
    attached = []
    for dataset in datasets:
        tables = _tables(dataset.versions, folder)
        if dataset.live in tables:
            attached.append(_create(con, dataset, names[dataset.name], tables))
    if attached:
        _enrich_macros(con, attached)
    return con, attached


def describe(attached: Sequence[Attached]) -> str:
    """What the session holds, a line a dataset."""
    lines = [f"Tables in the {FORMAT} layout (docs/sql.md):"]
    for table in attached:
        renamed = "" if table.name == table.dataset else f" (dataset {table.dataset})"
        kept = ", ".join(map(str, table.versions))
        lines.append(
            f"  {table.name}{renamed}: version {table.live} live, columns {', '.join(table.columns)}; "
            f"{table.name}_versions (versions {kept}), {table.name}_history"
        )
    if not attached:
        lines.append("  none: no dataset has a live version")
    return "\n".join(lines)
