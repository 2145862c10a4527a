"""The prompt of ``make sql`` (``sql.shell``): a statement may span lines and runs once its ``;`` comes, a statement
DuckDB refuses is one line on stderr and the next still runs, ``.tables`` prints what is attached, ``.quit`` ends."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator

import duckdb
import pytest

from sql.shell import QueryError, complete, repl, run


def _reader(lines: list[str]) -> Callable[[str], str]:
    given: Iterator[str] = iter(lines)

    def read(_prompt: str) -> str:
        try:
            return next(given)
        except StopIteration:
            raise EOFError from None

    return read


def test_statements_run_as_they_end_and_errors_do_not_stop_the_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    con = duckdb.connect()
    lines = ["CREATE TABLE t AS", "  SELECT 41 AS n;", "SELECT nope FROM t;", ".tables", "SELECT n + 1 AS m", "FROM t;"]
    repl(con, "the attached tables", _reader([*lines, ".quit", "SELECT 'after quit';"]), form="csv")
    out, err = capsys.readouterr()
    assert out.splitlines() == ["Count", "1", "the attached tables", "m", "42"]
    assert err.count("\n") == 1
    assert err.startswith("error: Binder Error: ")
    assert "after quit" not in out


def test_the_end_of_the_input_ends_the_prompt_and_its_last_statement(capsys: pytest.CaptureFixture[str]) -> None:
    repl(duckdb.connect(), "", _reader(["SELECT 1 AS one;", "SELECT 2 AS two", "  "]), form="jsonl")
    assert capsys.readouterr().out.splitlines() == ['{"one": 1}', '{"two": 2}']
    repl(duckdb.connect(), "", _reader(["SELECT 1 AS one;", "   "]), form="jsonl")
    assert capsys.readouterr().out.splitlines() == ['{"one": 1}']


def test_a_refused_statement_is_a_query_error_of_one_line() -> None:
    with pytest.raises(QueryError) as raised:
        run(duckdb.connect(), "SELECT * FROM nowhere", "table", io.StringIO())
    assert "\n" not in str(raised.value)
    assert "nowhere" in str(raised.value)
    assert complete("SELECT 1;  \n")
    assert not complete("SELECT ';' AS x")
