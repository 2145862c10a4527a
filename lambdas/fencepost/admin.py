"""Operator commands against the ranges table: ``python -m fencepost.admin rollback <dataset>``.

The table comes from ``TABLE_NAME`` (and, for the local stack, ``AWS_ENDPOINT_URL_DYNAMODB``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from fencepost.errors import Unavailable
from fencepost.settings import SettingsError, TableSettings
from fencepost.store import Store, make_client


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fencepost.admin", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    rollback = commands.add_parser(
        "rollback", help="serve the previous version of a dataset again (run it twice to roll forward)"
    )
    rollback.add_argument("dataset")
    status = commands.add_parser("status", help="show a dataset's record as the API serves it")
    status.add_argument("dataset")
    args = parser.parse_args(argv)

    try:
        settings = TableSettings.from_env(os.environ)
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    store = Store(make_client(settings, retries=3, read_timeout=10), settings.table_name)
    try:
        if args.command == "rollback":
            record = store.rollback(args.dataset)
            print(f"{args.dataset}: version {record.live} is live; version {record.previous} is the rollback target")
        else:
            found = store.get_dataset(args.dataset, consistent=True)
            if found is None:
                print(f"error: no dataset named {args.dataset!r}", file=sys.stderr)
                return 1
            print(json.dumps(found.to_api(), indent=2))
    except (LookupError, Unavailable) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
