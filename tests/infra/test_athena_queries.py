"""The workgroup's saved queries: each log table AWS documents, enriched with a dataset's live table and with the
version live at each line's own time, as Trino SQL."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from infra.athena_queries import LOG_TABLES, saved_queries


def _tree(sql: str) -> exp.Select:
    tree = sqlglot.parse_one(sql, read="trino")
    assert isinstance(tree, exp.Select)
    first = tree.find(exp.CTE)
    assert first is not None
    assert first.alias == "fp_lines"  # the one place a filter on the logs goes
    return tree


def test_each_log_table_gets_a_live_and_an_as_of_query_that_trino_parses_and_that_read_the_log_once() -> None:
    queries = saved_queries(
        database="fencepost_db", logs_database="weblogs", dataset="geo-v2", table="geo_v2", columns=["country", "asn"]
    )

    names = [
        name for log in LOG_TABLES for name in (f"fencepost-{log.key}-geo-v2", f"fencepost-{log.key}-geo-v2-as-of-line")
    ]
    assert [query.name for query in queries] == names
    for log, live, then in zip(LOG_TABLES, queries[::2], queries[1::2], strict=True):
        tree = _tree(live.sql)
        tables = sorted((table.db, table.name) for table in tree.find_all(exp.Table) if table.db)
        assert tables == [("fencepost_db", "geo_v2"), ("weblogs", log.table)]
        assert [select.alias for select in tree.selects if select.alias] == ["geo-v2.country", "geo-v2.asn"]
        assert log.address in {column.name for column in tree.find_all(exp.Column)}

        tree = _tree(then.sql)
        tables = sorted({(table.db, table.name) for table in tree.find_all(exp.Table) if table.db})
        assert tables == [
            ("fencepost_db", "geo_v2_history"),
            ("fencepost_db", "geo_v2_versions"),
            ("weblogs", log.table),
        ]
        answered = [select.alias for select in tree.selects if select.alias]
        assert answered == ["geo-v2.version", "geo-v2.country", "geo-v2.asn"]
        first = tree.find(exp.CTE)
        assert first is not None
        assert isinstance(first.this, exp.Select)
        assert "fp_at" in [select.alias for select in first.this.selects]  # each line's instant, from its columns
        assert "live at its own time" in then.description
