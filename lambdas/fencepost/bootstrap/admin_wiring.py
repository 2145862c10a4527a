"""The admin commands wired (``python -m fencepost.handlers.admin``): ``rollback`` and ``status`` need the table
alone (``TABLE_NAME``); ``accept`` is wired as the loader is (``loader_wiring``), ``fetch`` as the fetch function is
(``fetch_wiring``)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from fencepost.aws.dynamo import Tables, make_client
from fencepost.settings import TableSettings


def admin_tables(env: Mapping[str, str] | None = None) -> Tables:
    """The table's records, read consistently by a person at a terminal: a few retries, a short timeout."""
    settings = TableSettings.from_env(os.environ if env is None else env)
    return Tables.connect(make_client(retries=3, read_timeout=10), settings.table_name)


def tell_tables(env: Mapping[str, str], dataset: str, version: int) -> bool:
    """Ask the tables function (``TABLES_QUEUE_URL``, when set) to move the dataset's Glue tables to its live
    version; whether it was asked."""
    url = env.get("TABLES_QUEUE_URL", "").strip()
    if not url:
        return False
    from fencepost.aws.sqs import TableRequests, make_sqs_client

    TableRequests(make_sqs_client, url)(dataset, version)
    return True
