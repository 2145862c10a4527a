"""History across a restart of ``make run``'s entry point: with ``--table disk`` every version kept by
``retain_days``, the whole timeline and the answers ``as_of`` any instant are as before; with the in-memory table
(rebuilt from the mirrored objects) the dated folders' versions are built again and answer as before, and the loads'
history starts afresh, as the README says."""

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


@pytest.mark.parametrize("table", ["disk", "memory"])
def test_history_across_a_restart(tmp_path: Path, table: str) -> None:
    rows = read_tsv(V4_FILE, 64_000)[60_000:64_000]
    parts = [rows[0:1000], rows[1000:2000], rows[2000:3000]]
    probes = [format_address(V4, start) for start in family_ranges(rows)[V4].starts[::200]]
    first = start(tmp_path, "--table", table)
    try:
        # Given three loads a few seconds apart (the first kept only by retain_days), and a dated folder
        first.s3.put_object(Bucket="ranges", Key="hist/_settings.json", Body=json.dumps(SETTINGS).encode())
        version = None
        for part in parts:
            first.s3.put_object(Bucket="ranges", Key="hist/ranges.tsv", Body=tsv_bytes(part))
            version = _settled(first, version)
        first.s3.put_object(Bucket="ranges", Key=f"hist/_history/{DATED}/ranges.tsv", Body=tsv_bytes(rows[3000:4000]))
        before = _dated_ready(first)
        periods = _periods(before)
        assert len(periods) == 4
        instants = [f"{DATED}T12:00:00Z", *(start for _, start, _, _ in periods if not start.startswith(DATED))]
        answers = _as_of(first, instants, probes)
        assert {status for status, _ in answers} <= {200, 404}
        assert {body.get("version") for _, body in answers} == {v for v, _, _, _ in periods}
    finally:
        stop(first)
    # When make run starts again on the same data directory
    second = start(tmp_path, "--table", table)
    try:
        _dated_ready(second)
        live = _settled(second, None)
        after = _dated_ready(second)
        if table == "disk":
            # Then the table kept everything: the timeline, the version kept by retain_days, and every answer
            assert _periods(after) == periods
            assert _as_of(second, instants, probes) == answers
        else:
            # Then the dated folder's version answers its date as before; the loads' history starts afresh, with
            # the folder's file as it is now (the dated version answers until it went live again)
            dated = [v for v, _, _, d in _periods(after) if d == DATED]
            assert len(dated) == 1
            again = _as_of(second, instants[:1], probes)
            assert [(s, {**b, "version": None}) for s, b in again] == [
                (s, {**b, "version": None}) for s, b in answers[: len(probes)]
            ]
            assert {body["version"] for _, body in again if "version" in body} == set(dated)
            assert [v for v, _, _, d in _periods(after) if d is None] == [live]
    finally:
        stop(second)
