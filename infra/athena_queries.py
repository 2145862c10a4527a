"""The saved queries of the tables' Athena workgroup: the logs AWS documents Athena tables for, each enriched with a
dataset's live table by the join of ``fencepost.tables.join_sql`` in its Trino form.

The log tables are those of AWS's own DDL, by the names and columns it gives them (Athena's user guide: "Query
Application Load Balancer logs", "Query Amazon CloudFront logs", "Query Amazon VPC flow logs"), in the database
``logs_database`` (``default`` unless the deploy says otherwise: ``-c athenaLogsDatabase=...``):

- ``alb_access_logs``, the client's address in ``client_ip``;
- ``cloudfront_standard_logs``, the viewer's address in ``c_ip``;
- ``vpc_flow_logs``, the source address in ``srcaddr``.

Each log table gets two queries: enriched with the dataset's live version, and with the version live at each line's
own time (its instant read from the line's columns as AWS's DDL declares them). Each reads the log table once, in
its first relation (``fp_lines``): add the partition or time filter of the logs in question there before running it
over a large table (the workgroup's scan limit stops it otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from fencepost.tables.catalog import VERSIONS_SUFFIX
from fencepost.tables.dialects import TRINO
from fencepost.tables.join_sql import Joined, enrichments_query


@dataclass(frozen=True, slots=True)
class LogTable:
    key: str  # the saved query's name part
    table: str  # as AWS's DDL names it
    address: str  # the column holding the address enriched
    instant: str  # the line's own time as a Trino timestamp, from its columns
    what: str


LOG_TABLES: Final = (
    LogTable(
        "alb",
        "alb_access_logs",
        "client_ip",
        "from_iso8601_timestamp(time)",  # 2026-11-29T01:02:03.456789Z
        "Application Load Balancer access logs, by client address",
    ),
    LogTable(
        "cloudfront",
        "cloudfront_standard_logs",
        "c_ip",
        "from_iso8601_timestamp(concat(CAST(\"date\" AS varchar), 'T', time, 'Z'))",  # a DATE and 01:02:03, UTC
        "CloudFront standard logs, by viewer address",
    ),
    LogTable(
        "vpc",
        "vpc_flow_logs",
        "srcaddr",
        "from_unixtime(start)",  # the flow's first second, epoch seconds
        "VPC flow logs, by source address",
    ),
)
INSTANT: Final = "fp_at"  # the column of each line's instant the as-of queries add
HISTORY_SUFFIX: Final = "_history"  # a dataset's periods live, beside its versions (``<name>_versions``)


@dataclass(frozen=True, slots=True)
class SavedQuery:
    name: str
    description: str
    sql: str


def _name(text: str) -> str:
    return TRINO.name_of(text)


def saved_queries(
    *, database: str, logs_database: str, dataset: str, table: str, columns: Sequence[str]
) -> list[SavedQuery]:
    """Two queries per log table: its rows with ``columns`` of ``dataset``'s live table (``table`` in
    ``database``), named ``<dataset>.<column>``; and the same from the version live at each line's own time
    (``<table>_versions`` and ``<table>_history``), naming that version too."""
    live = Joined(f"{_name(database)}.{_name(table)}", tuple(columns), f"{dataset}.")
    history = f"{_name(database)}.{_name(table + HISTORY_SUFFIX)}"
    then = Joined(f"{_name(database)}.{_name(table + VERSIONS_SUFFIX)}", tuple(columns), f"{dataset}.", history)
    listed = ", ".join(columns)
    queries = []
    for log in LOG_TABLES:
        logs = f"{_name(logs_database)}.{_name(log.table)}"
        queries.append(
            SavedQuery(
                name=f"fencepost-{log.key}-{dataset}",
                description=f"{log.what}, enriched with the live version of {dataset} ({listed})",
                sql=_with_lines(enrichments_query(TRINO, "fp_lines", log.address, [live]), f"SELECT * FROM {logs}"),
            )
        )
        timed = f"SELECT *, {log.instant} AS {INSTANT} FROM {logs}"
        queries.append(
            SavedQuery(
                name=f"fencepost-{log.key}-{dataset}-as-of-line",
                description=f"{log.what}, each line enriched with the version of {dataset} live at its own time "
                f"({listed})",
                sql=_with_lines(enrichments_query(TRINO, "fp_lines", log.address, [then], INSTANT), timed),
            )
        )
    return queries


def _with_lines(query: str, lines: str) -> str:
    """``query`` reading its rows from ``fp_lines``, defined first as ``lines``: the one place a filter goes."""
    defined = f"WITH fp_lines AS (\n    {lines}  -- a WHERE on the logs' partitions here\n), "
    return query.strip().replace("WITH ", defined, 1) + "\n"
