"""The admin commands wired (``python -m fencepost.handlers.admin``): ``rollback`` and ``status`` need the table
alone (``TABLE_NAME``), and ``rollback`` announces itself (``admin_events``); ``accept`` is wired as the loader is
(``loader_wiring``), ``fetch`` as the fetch function is (``fetch_wiring``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from fencepost.aws.dynamo import Tables, control_client
from fencepost.core.events import ChangeEvents
from fencepost.declared import CHANGE_EVENTS
from fencepost.settings import TableSettings


def admin_tables(env: Mapping[str, str] | None = None) -> Tables:
    """The table's records, read consistently by a person at a terminal: a few retries, a short timeout."""
    settings = TableSettings.from_env(os.environ if env is None else env)
    return Tables.connect(control_client(), settings.table_name)


def tell_tables(env: Mapping[str, str], dataset: str, version: int) -> bool:
    """Ask the tables function (``TABLES_QUEUE_URL``, when set) to move the dataset's Glue tables to its live
    version; whether it was asked."""
    url = env.get("TABLES_QUEUE_URL", "").strip()
    if not url:
        return False
    from fencepost.aws.sqs import TableRequests, make_sqs_client

    TableRequests(make_sqs_client, url)(dataset, version)
    return True


def admin_events(env: Mapping[str, str]) -> ChangeEvents:
    """Where the commands announce what they change (``CHANGE_EVENTS``, ``EVENTS_SOURCE``, ``EVENTS_SECONDS``, as the
    functions read them): an event not delivered in time is said on standard error (a terminal has no metrics)."""
    from fencepost.aws.events import change_events

    values = {name: setting.read(env) for name, setting in CHANGE_EVENTS.items()}

    def warn(message: str, extra: dict[str, Any]) -> None:
        print(f"warning: {message}: {extra}", file=sys.stderr)

    return change_events(
        values["events"], values["events_source"], values["events_seconds"], count=lambda *_: None, warn=warn
    )
