"""``python -m sql`` (``make sql``): DuckDB with every dataset's live version as a table named after it, its kept
versions (``<name>_versions``) and their periods live (``<name>_history``), the address macros and the enrichment
table macros (``sql.session``); a prompt, or ``--query`` printed and done.

Where the datasets come from (``sql.local_tables``): ``--ranges [NAME=]FILE`` (no service), else the stack
``TABLE_NAME`` and ``BUCKET_NAME`` name, else the local stack ``make run`` started. Each version's table is written
once into ``--cache`` (``var/tables/``) and reused by the sessions after.
Exit status: 0 done, 1 a query DuckDB refused or datasets that cannot be had (one line on stderr), 2 usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import duckdb

from fencepost.errors import DependencyUnavailable, ServiceError
from local.state import data_dir
from sql.local_tables import CatalogError, file_datasets, service_datasets
from sql.session import describe, open_session
from sql.shell import FORMATS, QueryError, repl, run


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="python -m sql", description=__doc__.split("\n\n")[0])
    parse.add_argument("--ranges", action="append", default=[], metavar="[NAME=]FILE", help="a dataset from FILE")
    parse.add_argument("--dataset", action="append", default=[], help="attach only this dataset (repeat for more)")
    parse.add_argument("--query", help="run this, print its result and exit (default: a prompt)")
    parse.add_argument("--format", choices=FORMATS, default="table", help="how results are printed")
    parse.add_argument("--cache", type=Path, help="where the tables are kept (default: var/tables/, or DATA_DIR's)")
    return parse


REFUSED = (CatalogError, OSError, ValueError, ServiceError, DependencyUnavailable, duckdb.Error)


def _message(error: BaseException) -> str:
    """One line saying why: a service error's message, DuckDB's first line, else the error's own text (the stack's
    DynamoDB or S3 not reached, a file that cannot be read or loaded)."""
    if isinstance(error, ServiceError):
        return error.message
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cache = args.cache or data_dir() / "tables"
    try:
        datasets = file_datasets(args.ranges, args.dataset) if args.ranges else service_datasets(args.dataset)
        con, attached = open_session(datasets, cache)
    except REFUSED as error:
        print(f"error: {_message(error)}", file=sys.stderr)
        return 1
    tables = describe(attached)
    if args.query is None:
        print(tables + "\n.help shows examples; statements end with ';'")
        repl(con, tables, form=args.format)
        return 0
    try:
        run(con, args.query, args.format)
    except QueryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
