"""The join with a version's table (``tables.schema``), its shape written once and spelled for DuckDB, Trino (Athena)
and Spark SQL (``tables.dialects``), from the layout's own constants (``tables.address_sql``).

``enrichments_query`` joins a relation's column of addresses with one or several tables: each distinct address is
read once (``address_sql.ip_hex``), probes its bucket at every level of its family (a join with the levels), the
probes meet each table's rows by ``ip_bucket`` (an equi-join), the bounds pick the one piece, and every input row
gets its address's columns from each table (NULL where no piece holds it). ``enrichment_query`` is the same for one
table in DuckDB. A table given with its dataset's history (``Joined.history``: when each version was live) answers
each row as of its own instant: from every version's rows (``version`` their partition), the version live then.

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


VERSION, LIVE_FROM, LIVE_UNTIL = "version", "live_from", "live_until"  # the versions' partition; the history


@dataclass(frozen=True, slots=True)
class Joined:
    """A table to join: a relation as SQL (a table's or view's name, ``read_parquet('...')``), the columns taken from
    it, the prefix of their names in the answer; and for the answer as of each row's own time, the dataset's history
    (a relation of ``version``, ``live_from``, ``live_until``: when each version was live, the last interval open
    with a NULL end), ``table`` then holding every version's rows with their ``version``."""

    table: str
    selected: tuple[str, ...]
    prefix: str = ""
    history: str | None = None


def _live(history: str, at: str) -> str:
    """The condition that the version of ``history`` was live at the instant ``at``."""
    return f"{history}.{LIVE_FROM} <= {at} AND ({history}.{LIVE_UNTIL} IS NULL OR {at} < {history}.{LIVE_UNTIL})"


def _found(d: Dialect, at: int, joined: Joined) -> str:
    taken = "".join(f", t.{d.name_of(name)}" for name in joined.selected)
    if joined.history is None:
        return f"""fp_found_{at} AS (
    SELECT p.fp_text{taken}
    FROM fp_probes AS p JOIN {joined.table} AS t
    ON t.{BUCKET} = p.fp_key AND p.fp_bin BETWEEN t.{START} AND t.{END}
)"""
    return f"""fp_found_{at} AS (
    SELECT p.fp_text, w.fp_version{taken}
    FROM fp_probes AS p JOIN fp_wanted_{at} AS w ON w.fp_text = p.fp_text JOIN {joined.table} AS t
    ON t.{VERSION} = w.fp_version AND t.{BUCKET} = p.fp_key AND p.fp_bin BETWEEN t.{START} AND t.{END}
)"""


def _wanted(d: Dialect, at: int, joined: Joined, *, addresses: str, column: str, instant: str) -> str:
    """Each address with each version it is wanted from (the version live at a row's instant)."""
    return f"""fp_wanted_{at} AS (
    SELECT DISTINCT a.{d.name_of(column)} AS fp_text, h.{VERSION} AS fp_version
    FROM {addresses} AS a JOIN {joined.history} AS h ON {_live("h", f"a.{d.name_of(instant)}")}
),"""


def _answer(d: Dialect, at: int, joined: Joined, column: str, instant: str | None) -> tuple[str, str]:
    """The answer's columns from table ``at``, and the joins that bring them to each row."""
    shown = [f"f{at}.{d.name_of(name)} AS {d.name_of(joined.prefix + name)}" for name in joined.selected]
    same = f"f{at}.fp_text = a.{d.name_of(column)}"
    if joined.history is None:
        return ", ".join(shown), f"LEFT JOIN fp_found_{at} AS f{at} ON {same}"
    assert instant is not None
    live = f"LEFT JOIN {joined.history} AS h{at} ON {_live(f'h{at}', f'a.{d.name_of(instant)}')}"
    shown.insert(0, f"h{at}.{VERSION} AS {d.name_of(joined.prefix + VERSION)}")
    found = f"LEFT JOIN fp_found_{at} AS f{at} ON {same} AND f{at}.fp_version = h{at}.{VERSION}"
    return ", ".join(shown), f"{live}\n{found}"


def enrichments_query(
    d: Dialect, addresses: str, column: str, tables: Sequence[Joined], instant: str | None = None
) -> str:
    """Every row of the relation ``addresses`` with, for each of ``tables``, the selected columns of its row whose
    piece holds the row's ``column`` address (named with the table's prefix; NULL where no piece does). A table with
    a history answers from the version live at the row's ``instant`` column (and names that version, as
    ``<prefix>version``; NULL where none was live)."""
    if instant is None and any(joined.history for joined in tables):
        raise ValueError("a table answered as of each row's time needs the column of the rows' instants")
    answers = [_answer(d, at, joined, column, instant) for at, joined in enumerate(tables)]
    wanted = "".join(
        _wanted(d, at, joined, addresses=addresses, column=column, instant=instant or "")
        for at, joined in enumerate(tables)
        if joined.history is not None
    )
    found = ",\n".join(_found(d, at, joined) for at, joined in enumerate(tables))
    return f"""
WITH {wanted}fp_texts AS (
    SELECT DISTINCT {d.name_of(column)} AS fp_text FROM {addresses}
), fp_parsed AS (
    SELECT fp_text, {ip_hex(d, "fp_text")} AS fp_hex FROM fp_texts
), fp_probes AS (
    SELECT p.fp_text, {d.unhex("p.fp_hex")} AS fp_bin, {probe_key(d, "p.fp_hex")} AS fp_key
    FROM fp_parsed AS p JOIN {levels()} ON fp_levels.fp_family = {hex_family("p.fp_hex")}
), {found}
SELECT a.*, {", ".join(shown for shown, _ in answers)}
FROM {addresses} AS a
{chr(10).join(joins for _, joins in answers)}
"""


def enrichment_query(addresses: str, column: str, table: str, selected: Sequence[str], prefix: str = "") -> str:
    """``enrichments_query`` in DuckDB for one table."""
    return enrichments_query(DUCKDB, addresses, column, [Joined(table, tuple(selected), prefix)])
