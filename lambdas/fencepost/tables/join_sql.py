"""The join with a version's table (``tables.schema``), its shape written once and spelled for DuckDB, Trino (Athena)
and Spark SQL (``tables.dialects``), from the layout's own constants (``tables.address_sql``).

``enrichments_query`` joins a relation's column of addresses with one or several tables: each distinct address is
read once (``address_sql.ip_hex``), probes its bucket at every level of its family (a join with the levels), the
probes meet each table's rows by ``ip_bucket`` (an equi-join), the bounds pick the one piece, and every input row
gets its address's columns from each table (NULL where no piece holds it). ``enrichment_query`` is the same for one
table in DuckDB.

``MACROS`` defines the address functions for DuckDB sessions (``make sql``), from the same expressions:

- ``fp_ip_hex(text)``: the address as 32 hex digits, IPv4 (and IPv4-mapped IPv6) as ``::ffff:a.b.c.d``;
- ``fp_ip(text)``: those 16 bytes (a BLOB), comparable with ``ip_start`` and ``ip_end``;
- ``fp_ip_family(text)``: 4 or 6;
- ``fp_ip_bucket(text, length)``: the key of its bucket at level ``length`` (``tables.buckets.bucket_key``);

and the same from the hex digits (``fp_hex_family``, ``fp_hex_bucket``). Trino has no macros and Spark SQL's
functions are Scala or Python: there the query holds the expressions themselves (``address_sql``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from fencepost.core.space.addresses import V4, V6
from fencepost.tables.address_sql import FIRST_DIGIT, hex_family, ip_hex, levels, probe_key
from fencepost.tables.buckets import key_base
from fencepost.tables.dialects import DUCKDB, Dialect
from fencepost.tables.schema import BUCKET, END, START


def _macro_bucket(family: int) -> str:
    length = f"length::BIGINT * {key_base(0, 1)}"
    digits = f"substr(h, {FIRST_DIGIT[family]}, length // 4)"
    return f"{key_base(family, 0)} + {length} + " + DUCKDB.hex_number(f"'0' || {digits}")


MACROS: Final = f"""
CREATE OR REPLACE MACRO fp_ip_hex(t) AS {ip_hex(DUCKDB, "t")};
CREATE OR REPLACE MACRO fp_hex_family(h) AS {hex_family("h")};
CREATE OR REPLACE MACRO fp_hex_bucket(h, length) AS CASE fp_hex_family(h)
    WHEN {V4} THEN {_macro_bucket(V4)}
    WHEN {V6} THEN {_macro_bucket(V6)}
END;
CREATE OR REPLACE MACRO fp_ip(t) AS unhex(fp_ip_hex(t));
CREATE OR REPLACE MACRO fp_ip_family(t) AS fp_hex_family(fp_ip_hex(t));
CREATE OR REPLACE MACRO fp_ip_bucket(t, length) AS fp_hex_bucket(fp_ip_hex(t), length);
"""


@dataclass(frozen=True, slots=True)
class Joined:
    """A table to join: a relation as SQL (a table's or view's name, ``read_parquet('...')``), the columns taken from
    it, and the prefix of their names in the answer."""

    table: str
    selected: tuple[str, ...]
    prefix: str = ""


def quoted(name: str, dialect: Dialect = DUCKDB) -> str:
    return dialect.name_of(name)


def _found(d: Dialect, at: int, joined: Joined) -> str:
    taken = "".join(f", t.{d.name_of(name)}" for name in joined.selected)
    return f"""fp_found_{at} AS (
    SELECT p.fp_text{taken}
    FROM fp_probes AS p JOIN {joined.table} AS t
    ON t.{BUCKET} = p.fp_key AND p.fp_bin BETWEEN t.{START} AND t.{END}
)"""


def enrichments_query(d: Dialect, addresses: str, column: str, tables: Sequence[Joined]) -> str:
    """Every row of the relation ``addresses`` with, for each of ``tables``, the selected columns of its row whose
    piece holds the row's ``column`` address (named with the table's prefix; NULL where no piece does)."""
    shown = ", ".join(
        f"f{at}.{d.name_of(name)} AS {d.name_of(joined.prefix + name)}"
        for at, joined in enumerate(tables)
        for name in joined.selected
    )
    found = ",\n".join(_found(d, at, joined) for at, joined in enumerate(tables))
    joins = "\n".join(
        f"LEFT JOIN fp_found_{at} AS f{at} ON f{at}.fp_text = a.{d.name_of(column)}" for at in range(len(tables))
    )
    return f"""
WITH fp_texts AS (
    SELECT DISTINCT {d.name_of(column)} AS fp_text FROM {addresses}
), fp_parsed AS (
    SELECT fp_text, {ip_hex(d, "fp_text")} AS fp_hex FROM fp_texts
), fp_probes AS (
    SELECT p.fp_text, {d.unhex("p.fp_hex")} AS fp_bin, {probe_key(d, "p.fp_hex")} AS fp_key
    FROM fp_parsed AS p JOIN {levels()} ON fp_levels.fp_family = {hex_family("p.fp_hex")}
), {found}
SELECT a.*, {shown}
FROM {addresses} AS a
{joins}
"""


def enrichment_query(addresses: str, column: str, table: str, selected: Sequence[str], prefix: str = "") -> str:
    """``enrichments_query`` in DuckDB for one table."""
    return enrichments_query(DUCKDB, addresses, column, [Joined(table, tuple(selected), prefix)])
