"""The order test files go out to pytest-xdist's workers: the longest first, so that no long file starts last and
keeps one worker busy after the others are done (the tail of a run is its longest file started late).

Each file's seconds come from ``tests/file_seconds.json``, written from a run's JUnit XML by
``python -m tests.support.ordering build/test-times.xml`` (``make test`` keeps its run's in that file). A file the
table does not know yet goes out as if it took ``UNKNOWN_SECONDS``: early, since a new file is as likely as any to
be long. Within a file the tests keep their order. The run passes ``--no-loadscope-reorder``, else pytest-xdist
sends the files with the most tests first, whatever their length.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Final, Protocol, TypeVar

from tests.support import ROOT

TABLE: Final = ROOT / "tests" / "file_seconds.json"
UNKNOWN_SECONDS: Final = 30.0


class Collected(Protocol):
    @property
    def nodeid(self) -> str: ...


T = TypeVar("T", bound=Collected)


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def longest_first(items: list[T], seconds: dict[str, float]) -> list[T]:
    """``items`` grouped by file, the files in decreasing seconds (then by name), each file's items in their order."""
    by_file: dict[str, list[T]] = {}
    for item in items:
        by_file.setdefault(file_of(item.nodeid), []).append(item)
    order = sorted(by_file, key=lambda name: (-seconds.get(name, UNKNOWN_SECONDS), name))
    return [item for name in order for item in by_file[name]]


def read_table(path: Path = TABLE) -> dict[str, float]:
    """The seconds per file; none when the table is missing or unreadable (the files then go out by name)."""
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(name): float(value) for name, value in table.items()} if isinstance(table, dict) else {}


def seconds_per_file(junit_xml: Path) -> dict[str, float]:
    """Each test file's seconds in a JUnit XML report (its tests' times summed), rounded to a tenth."""
    totals: dict[str, float] = {}
    for case in ET.parse(junit_xml).iter("testcase"):
        name = _path_of(case.get("classname", ""))
        totals[name] = totals.get(name, 0.0) + float(case.get("time") or 0)
    return {name: round(value, 1) for name, value in sorted(totals.items())}


def _path_of(classname: str) -> str:
    """The file of a JUnit class name (a module, or a class in one)."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        candidate = "/".join(parts[:end]) + ".py"
        if (ROOT / candidate).is_file():
            return candidate
    return "/".join(parts) + ".py"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.support.ordering <junit.xml>", file=sys.stderr)
        return 2
    TABLE.write_text(json.dumps(seconds_per_file(Path(argv[0])), indent=1) + "\n")
    print(f"wrote {TABLE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
