"""``make rollback`` and ``make fetch``: the operator commands (``fencepost.handlers.admin``) against the running local
stack, in the environment its functions run with, read from the stack's state file (``local.state``).

``python -m local.admin rollback|status|fetch|accept <dataset>``. With no stack running from the data dir it says so
and does nothing: it never acts on whatever else listens on the default ports.
"""

from __future__ import annotations

import os
import sys

from local.state import NoStack, running


def main(argv: list[str] | None = None) -> int:
    try:
        state = running()
    except NoStack as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    os.environ.update(state.environment)
    from fencepost.handlers import admin  # after the environment names the stack: its settings are read from it

    return admin.main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
