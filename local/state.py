"""Where the running local stack listens, for the commands that talk to it.

``python -m local`` (``make run``) writes ``<data dir>/stack.json`` once it answers, with its process id, its
addresses and the environment its functions run with, and removes it when it stops. ``make rollback``, ``make fetch``
(``local.admin``) and ``source local/env.sh`` (``python -m local.state --shell``) read it: they act on that stack, on
whatever ports it took, and refuse with a clear message when none runs, never on whatever else listens on 4566 or
8000. The data dir is ``var/``, or ``DATA_DIR``, as for ``python -m local`` itself.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STATE_NAME = "stack.json"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_DEFAULT_REGION": "us-east-1"}


class NoStack(RuntimeError):
    """No local stack runs from this data dir, said so that a person knows what to do."""


def data_dir() -> Path:
    """The data dir ``python -m local`` uses when given none: ``DATA_DIR``, else ``var/`` in the project."""
    return Path(os.environ.get("DATA_DIR") or ROOT / "var")


@dataclass(frozen=True, slots=True)
class StackState:
    pid: int
    api: str  # the HTTP API (and the console at <api>/console)
    aws: str  # the local S3, SQS and Secrets Manager
    dynamodb: str  # what the functions reach DynamoDB at: the capacity emulator when there is one
    environment: dict[str, str]  # what the functions find in their environment (local.config.environment)

    def shell(self) -> dict[str, str]:
        """What a shell needs to reach the stack with curl and the AWS CLI (no ``--endpoint-url``)."""
        return {
            "API": self.api,
            "AWS_ENDPOINT_URL": self.aws,
            "AWS_ENDPOINT_URL_DYNAMODB": self.dynamodb,
            **CREDENTIALS,
        }


def path_in(folder: Path) -> Path:
    return folder / STATE_NAME


def write(folder: Path, state: StackState) -> Path:
    """Written whole or not at all (a reader never sees half a file)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = path_in(folder)
    scratch = target.with_name(f".{STATE_NAME}.{state.pid}")
    scratch.write_text(json.dumps(asdict(state), indent=2) + "\n")
    scratch.replace(target)
    return target


def remove(folder: Path, pid: int) -> None:
    """Removed only if it is this process's (a second stack refused at start must not remove the first one's)."""
    try:
        if json.loads(path_in(folder).read_text()).get("pid") == pid:
            path_in(folder).unlink()
    except (OSError, ValueError):
        pass


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a running ``python -m local`` (not a later process that happens to have its number)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not cmdline.exists():  # not Linux: the process exists, which is what can be known
        return True
    arguments = cmdline.read_bytes().split(b"\0")
    return b"local" in arguments or any(part.endswith(b"local/__main__.py") for part in arguments)


def running(folder: Path | None = None) -> StackState:
    """The stack running from ``folder`` (the data dir), or ``NoStack`` saying why there is none."""
    folder = folder or data_dir()
    path = path_in(folder)
    start = "make run starts one" + ("" if folder == ROOT / "var" else f" (DATA_DIR={folder})")
    try:
        document: dict[str, Any] = json.loads(path.read_text())
        state = StackState(**document)
    except FileNotFoundError:
        raise NoStack(f"no local stack is running from {folder} (it writes {path} while it runs): {start}") from None
    except (OSError, ValueError, TypeError) as error:
        raise NoStack(f"{path} cannot be read ({error}): stop the local stack and {start}") from None
    if not _alive(state.pid):
        raise NoStack(f"the local stack that wrote {path} (process {state.pid}) is no longer running: {start}")
    return state


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.state", description=__doc__.split("\n\n")[0])
    parser.add_argument("--shell", action="store_true", help="print `export NAME=value` lines for a POSIX shell")
    args = parser.parse_args(argv)
    try:
        state = running()
    except NoStack as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.shell:
        print("\n".join(f"export {name}={shlex.quote(value)}" for name, value in state.shell().items()))
    else:
        print(json.dumps(asdict(state), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
