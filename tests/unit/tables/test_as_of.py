"""The join as of each row's own time (``join_sql.enrichments_query`` with a history): over a dataset's versions as one
table partitioned by ``version`` (``version=N/`` folders) and the history of when each was live (a rollback among
them), each row is answered as the live form answers from the version live at its instant, and names it; a row
before any version was live gets NULL. The Trino and Spark forms parse."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
import sqlglot
from sqlglot import exp

from fencepost.tables.dialects import DUCKDB, SPARK, TRINO, Dialect
from fencepost.tables.join_sql import Joined, enrichments_query
from tests.support.tables import HISTORY, connection, joined, live_at, mixed_addresses, two_versions
from tests.support.tables import instants as at_instants

SELECTED = ("ip_start", "col3", "col4")


def test_each_row_is_answered_from_the_version_live_at_its_instant(tmp_path: Path) -> None:
    table, paths = two_versions(tmp_path)
    addresses = mixed_addresses(table, 100_000)
    instants = at_instants(len(addresses))
    con = connection()
    live = {version: joined(con, addresses, f"read_parquet('{path}')", SELECTED) for version, path in paths.items()}
    con.register("fp_rows", pa.table({"n": range(len(addresses)), "ip": addresses, "at": instants}))
    history = dict(zip(["version", "live_from", "live_until"], zip(*HISTORY, strict=True), strict=True))
    con.register("fp_history", pa.table(history))
    versions = f"read_parquet('{tmp_path}/*/*.parquet', hive_partitioning = true)"
    query = enrichments_query(DUCKDB, "fp_rows", "ip", [Joined(versions, SELECTED, "asn.", "fp_history")], "at")
    names = ", ".join(f'"asn.{name}"' for name in ("version", *SELECTED))
    answered = con.sql(f"SELECT {names} FROM ({query}) ORDER BY n").fetchall()
    expected = []
    for at, instant in enumerate(instants):
        then = live_at(instant)
        expected.append((then, *live[then][at]) if then else (None,) * (1 + len(SELECTED)))
    assert answered == expected
    met = [live_at(instant) for instant in instants]
    assert min(met.count(version) for version in (None, 1, 2)) > 10_000
    assert sum(live[1][at] != live[2][at] for at in range(len(addresses))) > 2_500  # the versions answer differently


@pytest.mark.parametrize("dialect", [TRINO, SPARK], ids=lambda d: d.name)
def test_the_trino_and_spark_as_of_forms_parse_with_their_steps(dialect: Dialect) -> None:
    tables = [Joined("asn_versions", SELECTED, "asn.", "asn_history"), Joined("geo", ("country",), "geo.")]
    tree = sqlglot.parse_one(enrichments_query(dialect, "logs", "ip", tables, "time"), read=dialect.name)
    assert isinstance(tree, exp.Select)
    assert [cte.alias for cte in tree.find_all(exp.CTE)][:2] == ["fp_wanted_0", "fp_texts"]
    assert tree.named_selects[-5:] == ["asn.version", "asn.ip_start", "asn.col3", "asn.col4", "geo.country"]
    with pytest.raises(ValueError, match="instants"):
        enrichments_query(dialect, "logs", "ip", tables)
