"""Operator commands: ``python -m fencepost.handlers.admin rollback|status|fetch|accept <dataset>``.

The table comes from ``TABLE_NAME`` (and, for the local stack, ``AWS_ENDPOINT_URL_DYNAMODB``); ``fetch`` also needs the
bucket (``BUCKET_NAME``) and checks the folder's source at once, as the fetch function's schedule would; ``accept``
the bucket and the loader's queues (``CONTROL_QUEUE_URL``, ``DATA_QUEUE_URL``), and builds what the folder holds now
past its gates, once (after a person looked at the refused build's diff). ``rollback`` tells the tables function
(``TABLES_QUEUE_URL``, when set), whose Glue table of the live version follows, and announces itself as a change
event when ``CHANGE_EVENTS`` is on (``docs/events.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence

from fencepost.bootstrap.admin_wiring import admin_events, admin_tables, tell_tables
from fencepost.bootstrap.fetch_wiring import source_checker
from fencepost.bootstrap.loader_wiring import loader_function
from fencepost.bootstrap.sink_wiring import tell_sinks
from fencepost.core.events.kinds import rolled_back
from fencepost.core.formats.base import FileError
from fencepost.core.sources.schedule import Outcome
from fencepost.core.storage.objects import FolderError
from fencepost.declared import SettingsError
from fencepost.errors import Conflict, DependencyUnavailable, StoreUnavailable
from fencepost.loading.accepting import NotAccepted, accept_once
from fencepost.settings import FetchSettings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fencepost.handlers.admin", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    rollback = commands.add_parser(
        "rollback", help="serve the previous version of a dataset again (run it twice to roll forward)"
    )
    rollback.add_argument("dataset")
    status = commands.add_parser("status", help="show a dataset's record as the API serves it")
    status.add_argument("dataset")
    fetch = commands.add_parser("fetch", help="check a dataset's source (_source.json) now, whether due or not")
    fetch.add_argument("dataset")
    accept = commands.add_parser("accept", help="let the build a gate refused last go live, once")
    accept.add_argument("dataset")
    accept.add_argument("build", type=int, nargs="?", help="the refused build (default: the latest)")
    args = parser.parse_args(argv)
    if args.command in ("fetch", "accept"):
        return _fetch(args.dataset) if args.command == "fetch" else _accept(args.dataset, args.build)

    try:
        datasets = admin_tables(os.environ).datasets
        events = admin_events(os.environ)
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        if args.command == "rollback":
            record = datasets.rollback(args.dataset, time.time())
            print(f"{args.dataset}: version {record.live} is live; version {record.previous} is the rollback target")
            if record.held is not None:
                print(f"{args.dataset}: it stays live until the folder changes (its objects or _settings.json)")
            if record.live is not None:
                held = record.held is not None
                events.publish(rolled_back(args.dataset, record.live, left=record.previous, held=held))
            if record.live is not None and tell_tables(os.environ, args.dataset, record.live):
                print(f"{args.dataset}: its Glue tables follow (the tables function was told)")
            if record.live is not None and tell_sinks(os.environ, args.dataset, record.live):
                print(f"{args.dataset}: its folder's sinks follow, if it names any (the loader was asked to push)")
        else:
            found = datasets.get(args.dataset, consistent=True)
            if found is None:
                print(f"error: no dataset named {args.dataset!r}", file=sys.stderr)
                return 1
            print(json.dumps(found.to_api(), indent=2))
    except (Conflict, StoreUnavailable, DependencyUnavailable) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


def _fetch(dataset: str) -> int:
    try:
        checker = source_checker(FetchSettings.from_env(os.environ))
        checked = checker.check(dataset, force=True)
    except (SettingsError, DependencyUnavailable, StoreUnavailable) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(checked.shown(), indent=2))
    return 1 if checked.outcome in (Outcome.FAILED, Outcome.INVALID) or checked.outcome is None else 0


def _accept(dataset: str, build: int | None) -> int:
    try:
        wired = loader_function(os.environ)
        done = accept_once(
            dataset,
            folder=wired.bucket,
            reports=wired.bucket,
            datasets=wired.tables.datasets,
            outbox=wired.queues,
            clock=time.time,
            build=build,
        )
    except NotAccepted as refused:
        print(f"error: {refused}", file=sys.stderr)
        return 1
    except (SettingsError, DependencyUnavailable, FolderError, FileError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    objects = f"{done.objects} object{'s' if done.objects != 1 else ''}"
    print(f"{dataset}: build {done.build} ({objects}, refused by {done.gate}) is built again past the gates, once")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
