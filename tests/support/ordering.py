"""The order test files go out to pytest-xdist's workers: the longest first, so that no long file starts last and
keeps one worker busy after the others are done (the tail of a run is its longest file started late).

Each file's seconds come from ``tests/file_seconds.json``, written from a run's JUnit XML by
``python -m tests.support.ordering build/test-times.xml`` (``make test`` keeps its run's in that file). A file the
table does not know yet goes out as if it took ``UNKNOWN_SECONDS``: early, since a new file is as likely as any to
be long. Within a file the tests keep their order. The run passes ``--no-loadscope-reorder``, else pytest-xdist
sends the files with the most tests first, whatever their length.

A file is one unit of work (``--dist loadfile``: its module fixtures set up once), except the files that share a
session fixture costly to set up (``SHARED``): they go to one worker together (``ByScope``), which sets it up once
for all of them. The files that read the synthesized template (``SYNTHESIZING``) synthesize each context once (the
``synthesize`` fixture), on the only worker that starts the CDK's Node.js runtime for it; the console's browser
files (``BROWSING``) share one ``make run`` stack and one Chromium (``tests/browser/conftest.py``).
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Final, Protocol, TypeVar

from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

from tests.support import ROOT

TABLE: Final = ROOT / "tests" / "file_seconds.json"
UNKNOWN_SECONDS: Final = 30.0
# The files (or folders, ending in /) that synthesize the app, and the one unit of work they make together.
SYNTHESIZING: Final = (
    "tests/infra/",
    "tests/integration/test_iam.py",
    "tests/integration/test_enrichment_job_status.py",
)
SYNTHESIZED: Final = "the files that synthesize the app"
BROWSING: Final = ("tests/browser/",)
BROWSED: Final = "the console's browser files"
SHARED: Final = {SYNTHESIZED: SYNTHESIZING, BROWSED: BROWSING}


class Collected(Protocol):
    @property
    def nodeid(self) -> str: ...


T = TypeVar("T", bound=Collected)


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def scope_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its file, or the name of the ``SHARED`` unit its file is in."""
    file = file_of(nodeid)
    for unit, names in SHARED.items():
        if any(file == name or (name.endswith("/") and file.startswith(name)) for name in names):
            return unit
    return file


class ByScope(LoadFileScheduling):  # type: ignore[misc]
    """pytest-xdist's ``loadfile`` scheduling, with ``scope_of``'s units of work."""

    def _split_scope(self, nodeid: str) -> str:
        return scope_of(nodeid)


def longest_first(items: list[T], seconds: dict[str, float]) -> list[T]:
    """``items`` grouped by unit of work (``scope_of``), the longest first (its files' seconds summed; then by
    name), each unit's items in their order."""
    by_scope: dict[str, list[T]] = {}
    for item in items:
        by_scope.setdefault(scope_of(item.nodeid), []).append(item)

    def length(scope: str) -> float:
        files = {file_of(item.nodeid) for item in by_scope[scope]}
        return sum(seconds.get(file, UNKNOWN_SECONDS) for file in files)

    order = sorted(by_scope, key=lambda scope: (-length(scope), scope))
    return [item for scope in order for item in by_scope[scope]]


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
