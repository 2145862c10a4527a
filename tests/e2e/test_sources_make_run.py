"""A source-fed folder through ``make run``'s entry point as a user drives it: a ``_source.json`` naming a publisher
(a real HTTP server here) and nothing else uploaded; the folder goes READY, refreshes when the release changes, does
nothing while it does not (counted), and ``make fetch`` checks it at once and refuses a release cut short."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.publisher import Publisher
from tests.support import ROOT
from tests.support.sources import address, drop_list
from tests.support.stacks import Running, start, stop


def _source(running: Running, timeout: float = 60, **expected: Any) -> dict[str, Any]:
    """``GET /datasets/drop``'s source once it shows ``expected``."""
    deadline, shown = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        status, body = running.get("/datasets/drop")
        shown = body.get("source") if status == 200 else None
        if shown is not None and all(shown.get(name) == value for name, value in expected.items()):
            return dict(body)
        time.sleep(0.3)
    raise AssertionError(f"the source did not show {expected}: {shown}")


def _make_fetch(running: Running) -> subprocess.CompletedProcess[str]:
    # make fetch finds the stack by its data dir's var/stack.json, as a user's make fetch finds make run's
    return subprocess.run(
        ["make", "--no-print-directory", "fetch", "DATASET=drop", f"DATA_DIR={running.data_dir}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_folder_fed_by_its_source_through_make_run(tmp_path: Path) -> None:
    running = start(tmp_path)
    try:
        with Publisher() as site:
            site.publish("/drop.txt", drop_list(range(500)))
            source = {"url": site.url("/drop.txt"), "every": "2s"}
            running.s3.put_object(Bucket="ranges", Key="drop/_source.json", Body=json.dumps(source).encode())
            first = running.wait_ready("drop", 1)
            assert first["ranges"] == 500
            assert first["objects"][0]["key"] == "drop/_fetched/drop.txt"
            assert running.get("/lookup", ip=address(7), dataset="drop")[1]["data"]["comment"] == "SBL100007"
            # Nothing new: checks go on, counted, and nothing is built
            quiet = _source(running, unchanged=3)
            assert (quiet["version"], quiet["load"]["version"]) == (1, 1)
            # A new release is picked up within an interval or two
            site.publish("/drop.txt", drop_list(range(520)))
            running.wait_ready("drop", 2)
            assert running.get("/lookup", ip=address(515), dataset="drop")[1]["data"]["comment"] == "SBL100515"
            # make fetch checks at once; a release cut short of its length is refused, the live version answers
            site.publish("/drop.txt", drop_list(range(540)), cut_at=3000)
            fetched = _make_fetch(running)
            assert fetched.returncode != 0, fetched.stdout + fetched.stderr
            shown = json.loads(fetched.stdout[fetched.stdout.index("{") :])
            assert (shown["outcome"], shown["written"]) == ("FAILED", [])
            assert "ended after" in shown["reason"]
            status, body = running.get("/datasets/drop")
            assert (status, body["version"], body["status"]) == (200, 2, "READY")
            site.publish("/drop.txt", drop_list(range(540)))
            fetched = _make_fetch(running)  # (make run's own round may have fetched it first: then it is unchanged)
            assert fetched.returncode == 0, fetched.stdout + fetched.stderr
            assert '"outcome": "CHANGED"' in fetched.stdout or '"outcome": "UNCHANGED"' in fetched.stdout
            running.wait_ready("drop", 3)
    finally:
        stop(running)
