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
