"""DuckDB over a version's table (``fencepost.tables``): a connection with the join's macros, and the join run over a
list of address texts, shared by the table tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa

from fencepost.core.space.addresses import MAPPED_FIRST, TOP, V4, V6, format_address
from fencepost.tables.join_sql import MACROS, enrichment_query


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
