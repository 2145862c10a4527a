"""The join's three forms (``tables.dialects``): the Trino (Athena) and Spark SQL forms parse in their dialects
(sqlglot; no Trino runs here), call only their engine's functions, and have the DuckDB form's shape: the same steps,
joins and answer columns. (DuckDB runs its form in test_bucketed_join and test_matches_engine, Spark its own in
tests/integration/test_spark_join.py.)"""

from __future__ import annotations

import re

import pytest
import sqlglot
from sqlglot import exp

from fencepost.tables.dialects import DIALECTS, DUCKDB, SPARK, TRINO, Dialect
from fencepost.tables.join_sql import Joined, enrichments_query

TABLES = [Joined("geo", ("ip_network", "country"), "geo."), Joined("asn", ("asn", "as name"), "asn.")]
# The functions each form may call, as the engines' documentation names them (Trino 4xx / Athena engine 3; Spark 3.5)
FUNCTIONS = {
    "trino": {"regexp_like", "split", "element_at", "cardinality", "concat", "repeat", "transform", "all_match"}
    | {"array_join", "lpad", "to_base", "from_base", "from_hex", "lower", "substr", "length", "cast", "array"},
    "spark": {"split", "element_at", "size", "concat", "array_repeat", "transform", "forall", "array_join", "array"}
    | {"lpad", "hex", "conv", "unhex", "lower", "substr", "length", "cast"},
}


def _called(sql: str) -> set[str]:
    """The functions ``sql`` calls (a CTE's or alias's column list, ``AS name(...)``, is none)."""
    code = re.sub(r"'[^']*'", "''", sql)
    return {name.lower() for name in re.findall(r"(?<!AS )\b([A-Za-z_]+)\(", code)} - {"as", "values", "in"}


def _shape(d: Dialect, tables: list[Joined]) -> tuple[list[str], list[str], list[str]]:
    """The steps (CTEs), the relations joined and the answer's column names of the form in dialect ``d``."""
    tree = sqlglot.parse_one(enrichments_query(d, "logs", "client ip", tables), read=d.name)
    assert isinstance(tree, exp.Select)
    steps = [cte.alias for cte in tree.find_all(exp.CTE)]
    joined = sorted(table.name for table in tree.find_all(exp.Table) if not table.name.startswith("fp_"))
    return steps, joined, tree.named_selects


@pytest.mark.parametrize("dialect", [TRINO, SPARK], ids=lambda d: d.name)
@pytest.mark.parametrize("count", [1, 2])
def test_the_trino_and_spark_forms_parse_and_call_only_their_engines_functions(dialect: Dialect, count: int) -> None:
    sql = enrichments_query(dialect, "logs", "client ip", TABLES[:count])
    tree = sqlglot.parse_one(sql, read=dialect.name)
    assert isinstance(tree, exp.Select)
    assert _called(sql) <= FUNCTIONS[dialect.name], _called(sql) - FUNCTIONS[dialect.name]
    assert not re.search(r"list_|regexp_full_match|::", re.sub(r"'[^']*'", "''", sql))  # no DuckDB left in it


@pytest.mark.parametrize("count", [1, 2])
def test_every_form_has_the_duckdb_forms_steps_joins_and_answer_columns(count: int) -> None:
    shapes = {name: _shape(d, TABLES[:count]) for name, d in DIALECTS.items()}
    steps, joined, columns = shapes["duckdb"]
    assert steps == ["fp_texts", "fp_parsed", "fp_probes", *[f"fp_found_{at}" for at in range(count)]]
    assert joined == sorted(["logs", "logs", *[table.table for table in TABLES[:count]]])
    assert columns[-2:] == [f"{TABLES[count - 1].prefix}{name}" for name in TABLES[count - 1].selected]
    assert shapes["trino"] == shapes["spark"] == shapes["duckdb"]


def test_a_literal_is_written_as_each_engine_reads_it() -> None:
    assert DUCKDB.literal(r"[0-9]\.") == TRINO.literal(r"[0-9]\.") == r"'[0-9]\.'"
    assert SPARK.literal(r"[0-9]\.") == r"'[0-9]\\.'"  # Spark SQL reads a backslash in a literal as an escape
    with pytest.raises(ValueError, match="quote"):
        TRINO.literal("it's")
    assert SPARK.name_of("client ip") == "`client ip`"
    assert TRINO.name_of('a"b') == '"a""b"'
