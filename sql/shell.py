"""Statements run and their results printed: one query (``--query``), or a prompt reading statements that end with
``;`` until ``.quit`` or the end of the input. A statement DuckDB refuses is one line on stderr, never a trace."""

from __future__ import annotations

import contextlib
import csv
import json
import sys
from collections.abc import Callable
from typing import IO, Final

import duckdb

FORMATS: Final = ("table", "csv", "jsonl")
BATCH_ROWS: Final = 10_000
SHOWN_ROWS, SHOWN_WIDTH = 200, 200  # a table printed: the rows shown before it elides, and its width
HELP: Final = """Statements end with ';'. .tables lists the datasets, .help this, .quit (or Ctrl-D) leaves.
Examples (docs/sql.md):
  SELECT * FROM fp_enrich('access.csv', 'ip', 'geo');
  SELECT * FROM geo WHERE ip_bucket = fp_ip_bucket('1.0.64.1', 24) AND fp_ip('1.0.64.1') BETWEEN ip_start AND ip_end;
  SELECT version, count(*) FROM geo_versions GROUP BY version;"""


class QueryError(ValueError):
    """A statement DuckDB refused: its first line says why."""


def _rows(con: duckdb.DuckDBPyConnection, statement: str, out: IO[str], form: str) -> None:
    result = con.execute(statement)
    names = [column[0] for column in result.description or ()]
    writer = csv.writer(out, lineterminator="\n") if form == "csv" else None
    if writer is not None:
        writer.writerow(names)
    while batch := result.fetchmany(BATCH_ROWS):
        for row in batch:
            if writer is not None:
                writer.writerow(["" if value is None else value for value in row])
            else:
                out.write(json.dumps(dict(zip(names, row, strict=True)), default=str) + "\n")


def run(con: duckdb.DuckDBPyConnection, statement: str, form: str = "table", out: IO[str] | None = None) -> None:
    """Run ``statement`` and print its result (``form``: a table, CSV or JSON lines) to ``out``."""
    out = out or sys.stdout
    try:
        if form != "table":
            _rows(con, statement, out, form)
            return
        relation = con.sql(statement)
        if relation is None:
            return
        if out is sys.stdout:
            relation.show(max_rows=SHOWN_ROWS, max_width=SHOWN_WIDTH)
        else:
            out.write(str(relation))
    except duckdb.Error as error:
        raise QueryError(str(error).strip().splitlines()[0]) from None


def complete(text: str) -> bool:
    """Whether ``text`` ends a statement (its last non-blank character is ``;``)."""
    return text.rstrip().endswith(";")


def _run_shown(con: duckdb.DuckDBPyConnection, statement: str, form: str) -> None:
    try:
        run(con, statement, form)
    except QueryError as error:
        print(f"error: {error}", file=sys.stderr)


def repl(con: duckdb.DuckDBPyConnection, tables: str, read: Callable[[str], str] = input, form: str = "table") -> None:
    """Statements read until ``.quit`` or the end of the input (which also ends a last statement without its ``;``);
    each result printed, each error one line."""
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401 - line editing and history for input(), where there is one
    pending: list[str] = []
    prompts = sys.stdin.isatty()
    while True:
        try:
            line = read("" if not prompts else "fencepost> " if not pending else "      ...> ")
        except EOFError:
            if prompts:
                print()
            if "".join(pending).strip():  # the input's last statement, without its ';'
                _run_shown(con, "\n".join(pending), form)
            return
        command = line.strip()
        if not pending and command.startswith("."):
            if command in (".quit", ".exit"):
                return
            print(tables if command == ".tables" else HELP)
            continue
        pending.append(line)
        if complete(line):
            _run_shown(con, "\n".join(pending), form)
            pending = []
