"""Datasets and their history across a restart of ``make run``'s entry point (stopped with Ctrl-C, started again on
the same data directory): a loaded dataset answers as before, kept on disk or built again from the mirrored
objects, and nothing of the in-memory table's working copy is left behind; with ``--table disk`` every version kept
by ``retain_days``, the whole timeline and the answers ``as_of`` any instant are as before; with the in-memory
table the dated folders' versions are built again and answer as before, and the loads' history starts afresh, as
the README says. One pair of stacks per table checks both."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from fencepost.core.space.addresses import V4, format_address
from tests.support import V4_FILE, family_ranges, read_tsv
from tests.support.lookups import tsv_bytes
from tests.support.stacks import Running, start, stop

SETTINGS = {"retain_days": 30, "max_removed_percent": None, "max_change_percent": None}
DATED = "2025-06-01"


def _settled(running: Running, after: int | None, timeout: float = 120) -> int:
    """Wait until dataset ``hist`` is READY at a version other than ``after``; returns it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, body = running.get("/datasets/hist")
        if status == 200 and body["status"] == "READY" and body["version"] not in (None, after):
            version: int = body["version"]
            return version
        time.sleep(0.3)
    raise AssertionError(f"hist did not settle after version {after}")


def _dated_ready(running: Running, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, listed = running.get("/datasets/hist/versions")
        if status == 200 and [(d["date"], d["status"]) for d in listed["dated"]] == [(DATED, "READY")]:
            return dict(listed)
        time.sleep(0.3)
    raise AssertionError("the dated folder was not placed in the history")


def _periods(listed: dict[str, Any]) -> list[tuple[int, str, str | None, str | None]]:
    return [(v["version"], p["from"], p["until"], v["dated"]) for v in listed["versions"] for p in v["live"]]


def _as_of(running: Running, instants: list[str], probes: list[str]) -> list[tuple[int, Any]]:
    return [running.get("/lookup", ip=ip, dataset="hist", as_of=at) for at in instants for ip in probes]


class Geo:
    """A slice of the shared IPv4 file as dataset ``geo``: its answers before the restart, and after."""

    def __init__(self) -> None:
        self.rows = read_tsv(V4_FILE, 56_000)[50_000:56_000]
        self.probes = [format_address(V4, start) for start in family_ranges(self.rows)[V4].starts[::500]]
        self.before: list[tuple[int, Any]] = []

    def load(self, first: Running) -> None:
        first.s3.put_object(Bucket="ranges", Key="geo/ranges.tsv", Body=tsv_bytes(self.rows))
        first.wait_ready("geo", 1)
        self.before = [first.get("/lookup", ip=ip, dataset="geo") for ip in self.probes]
        assert all(status == 200 for status, _ in self.before)

    def check(self, second: Running, started: float) -> None:
        """Answers as before: kept on disk, or built again from the mirrored objects, within two minutes."""
        record = second.wait_ready("geo", 1, timeout=120)
        restart = time.monotonic() - started
        assert [second.get("/lookup", ip=ip, dataset="geo") for ip in self.probes] == self.before
        assert record["ranges"] == len(self.rows)
        assert restart < 120, restart


class Hist:
    """Dataset ``hist``: three loads a few seconds apart (the first kept only by ``retain_days``) and a dated folder;
    its timeline and answers ``as_of`` each instant, before the restart and after."""

    def __init__(self) -> None:
        self.rows = read_tsv(V4_FILE, 64_000)[60_000:64_000]
        self.probes = [format_address(V4, start) for start in family_ranges(self.rows)[V4].starts[::200]]
        self.periods: list[tuple[int, str, str | None, str | None]] = []
        self.instants: list[str] = []
        self.answers: list[tuple[int, Any]] = []

    def load(self, first: Running) -> None:
        first.s3.put_object(Bucket="ranges", Key="hist/_settings.json", Body=json.dumps(SETTINGS).encode())
        version = None
        for part in (self.rows[0:1000], self.rows[1000:2000], self.rows[2000:3000]):
            first.s3.put_object(Bucket="ranges", Key="hist/ranges.tsv", Body=tsv_bytes(part))
            version = _settled(first, version)
        dated = tsv_bytes(self.rows[3000:4000])
        first.s3.put_object(Bucket="ranges", Key=f"hist/_history/{DATED}/ranges.tsv", Body=dated)
        self.periods = _periods(_dated_ready(first))
        assert len(self.periods) == 4
        self.instants = [f"{DATED}T12:00:00Z", *(at for _, at, _, _ in self.periods if not at.startswith(DATED))]
        self.answers = _as_of(first, self.instants, self.probes)
        assert {status for status, _ in self.answers} <= {200, 404}
        assert {body.get("version") for _, body in self.answers} == {v for v, _, _, _ in self.periods}

    def check(self, second: Running, table: str) -> None:
        _dated_ready(second)
        live = _settled(second, None)
        after = _dated_ready(second)
        if table == "disk":
            # The table kept everything: the timeline, the version kept by retain_days, and every answer
            assert _periods(after) == self.periods
            assert _as_of(second, self.instants, self.probes) == self.answers
            return
        # The dated folder's version answers its date as before; the loads' history starts afresh, with the
        # folder's file as it is now (the dated version answers until it went live again)
        dated = [v for v, _, _, d in _periods(after) if d == DATED]
        assert len(dated) == 1
        again = _as_of(second, self.instants[:1], self.probes)
        unversioned = [(s, {**b, "version": None}) for s, b in self.answers[: len(self.probes)]]
        assert [(s, {**b, "version": None}) for s, b in again] == unversioned
        assert {body["version"] for _, body in again if "version" in body} == set(dated)
        assert [v for v, _, _, d in _periods(after) if d is None] == [live]


@pytest.mark.parametrize("table", ["disk", "memory"])
def test_datasets_and_their_history_answer_the_same_after_a_restart(tmp_path: Path, table: str) -> None:
    geo, hist = Geo(), Hist()
    # Given a dataset loaded through make run's entry point, and another with a history
    first = start(tmp_path, "--table", table)
    try:
        geo.load(first)
        hist.load(first)
        pid = first.process.pid
    finally:
        stop(first)  # Ctrl-C
    assert not list(Path("/dev/shm").glob(f"fencepost-dynamodb-{pid}-*"))  # no working copy left in memory
    assert (tmp_path / "dynamodb" / "shared-local-instance.db").exists() is (table == "disk")
    # When make run starts again on the same data directory
    started = time.monotonic()
    second = start(tmp_path, "--table", table)
    try:
        # Then both answer as before, and the history is kept (disk) or its dated versions built again (memory)
        geo.check(second, started)
        hist.check(second, table)
    finally:
        stop(second)
