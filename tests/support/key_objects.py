"""A keyed folder's objects read as the loader reads them (``core.keyed.key_files``), without a loader: the rows
gathered (``core.keyed.key_rows``), the problems logged and the rows each object held."""

from __future__ import annotations

from fencepost.core.keyed.key_files import read_key_object
from fencepost.core.keyed.key_rows import KeyRows
from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.versions.build import ProblemLog


def rows_of(key: str = "asn", form: str | None = None, most: int = 1000) -> KeyRows:
    """An empty table keyed by ``key`` (``form``: the settings' key form), which holds at most ``most`` keys."""
    return KeyRows(key, form, most, f"more than {most} keys")


def read(name: str, body: bytes, rows: KeyRows | None = None) -> tuple[KeyedTable, ProblemLog, int]:
    """One object ``name`` holding ``body`` read into ``rows`` (a new table by default): the table, the problems
    and the rows the object held."""
    rows = rows or rows_of()
    problems = ProblemLog()
    count = read_key_object(name, body.splitlines(keepends=True), rows, problems)
    return rows.table(), problems, count
