"""libmaxminddb's own reader, ``mmdblookup`` (Debian's ``mmdb-bin``; ``make install`` installs it), run on a MaxMind DB
file: the record of an address, parsed from the tool's printed form into Python values."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

MMDBLOOKUP: Final = shutil.which("mmdblookup")
MISSING: Final = "mmdblookup is not installed: make install installs it (Debian's mmdb-bin: apt-get install mmdb-bin)"
_VALUE: Final = re.compile(r"(.*) <(\w+)>")
_NOT_FOUND: Final = "Could not find an entry for this IP address"


def mmdblookup(path: Path, address: str) -> dict[str, Any] | None:
    """The record ``mmdblookup`` finds for ``address``; None when the file has none."""
    assert MMDBLOOKUP is not None, MISSING
    done = subprocess.run(
        [MMDBLOOKUP, "--file", str(path), "--ip", address], capture_output=True, text=True, timeout=30, check=False
    )
    if _NOT_FOUND in done.stdout + done.stderr:
        return None
    assert done.returncode == 0, (address, done.stdout, done.stderr)
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    value, end = _parse(lines, 0)
    assert end == len(lines), done.stdout
    assert isinstance(value, dict), done.stdout
    return value


def _parse(lines: list[str], at: int) -> tuple[Any, int]:
    """The value starting at line ``at``, and the line after it."""
    line = lines[at]
    if line in ("{", "["):
        closing, items, at = "}" if line == "{" else "]", [], at + 1
        while lines[at] != closing:
            if line == "{":
                key = lines[at].removesuffix(":").strip()[1:-1]  # '"country":' (the tool prints it unescaped)
                value, at = _parse(lines, at + 1)
                items.append((key, value))
            else:
                value, at = _parse(lines, at)
                items.append(value)
        return (dict(items) if line == "{" else items), at + 1
    match = _VALUE.fullmatch(line)
    assert match is not None, line
    text, kind = match.groups()
    if kind == "utf8_string":
        return text[1:-1], at + 1
    if kind in ("double", "float"):
        return float(text), at + 1
    if kind == "boolean":
        return text == "true", at + 1
    return int(text), at + 1  # uint16 ... uint128, int32
