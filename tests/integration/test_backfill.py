"""Past files as past versions through the real loader and lookup handlers on DynamoDB Local and a local S3: a
dataset through five versions (three loads, a rollback and a roll-forward, then two dated folders uploaded the later
date first), and lookups ``as_of`` random instants across the whole history, and exactly at each event's instant
and a millisecond before it, answered from the file that was served then, by the overlap rule."""

from __future__ import annotations

import random
import time
from typing import Any

from fencepost.core.folders.backfill import date_instant
from fencepost.core.versions.history import parse_instant
from tests.support import V4_FILE, read_tsv
from tests.support.history import SETTINGS, Version, as_of_mismatches, history
from tests.support.lookups import tsv_bytes
from tests.support.stacks import Stack

KEEPING = {**SETTINGS, "retain_days": 3650}
JANUARY, JUNE = "2026-01-01", "2026-06-01"


def _dated(stack: Stack, date: str, rows: list[list[str]]) -> None:
    stack.put(f"hist/_history/{date}/data.tsv", tsv_bytes(rows))
    stack.drain()


def _timeline(stack: Stack) -> tuple[list[tuple[float, int]], dict[str, Any]]:
    """Every period's start and version, in time order, from the versions listing; and the listing."""
    status, listed = stack.get("/datasets/hist/versions")
    assert status == 200, listed
    now = time.time()
    starts = [(parse_instant(p["from"], now), v["version"]) for v in listed["versions"] for p in v["live"]]
    return sorted(starts), listed


def test_as_of_answers_from_loads_rollbacks_and_dated_folders_alike(stack: Stack) -> None:
    versions, _ = history(stack, KEEPING)
    rows = read_tsv(V4_FILE, 12000)[6000:12000]
    files = {JUNE: Version(rows[0:3000]), JANUARY: Version(rows[2000:5000])}
    _dated(stack, JUNE, files[JUNE].rows)  # the later date first: dated versions run by date, not by upload
    _dated(stack, JANUARY, files[JANUARY].rows)
    starts, listed = _timeline(stack)
    dated = {entry["date"]: entry for entry in listed["dated"]}
    assert {date: entry["status"] for date, entry in dated.items()} == {JANUARY: "READY", JUNE: "READY"}
    january, june = dated[JANUARY]["version"], dated[JUNE]["version"]
    assert 3 < june < january
    versions |= {january: files[JANUARY], june: files[JUNE]}
    # The history: January's version from its date, June's from its own until the first load, then the loads
    assert starts[:3] == [(date_instant(JANUARY), january), (date_instant(JUNE), june), (starts[2][0], 1)]
    by_version = {entry["version"]: entry for entry in listed["versions"]}
    assert by_version[january]["live"] == [{"from": f"{JANUARY}T00:00:00Z", "until": f"{JUNE}T00:00:00Z"}]
    assert (by_version[june]["dated"], by_version[1]["dated"], listed["live"]) == (JUNE, None, 3)

    # Address-instant pairs: every event's instant and a millisecond before it, then random instants in each
    # period (a dated period lasts months, the loads' seconds: each gets its share)
    rng = random.Random(20)
    now = time.time()
    periods = [(at, starts[k + 1][0] if k + 1 < len(starts) else now) for k, (at, _) in enumerate(starts)]
    instants = [at for at, _ in starts] + [at - 0.001 for at, _ in starts[1:]]
    while len(instants) < 200:
        start, end = periods[len(instants) % len(periods)]
        instants.append(rng.uniform(start, end))
    checked, mismatches = as_of_mismatches(stack, versions, starts, instants, rng)
    assert (checked, mismatches) == (20_000, 0)
    # Before the first dated folder's date, nothing answers
    status, body = stack.get("/lookup", ip="1.0.0.1", dataset="hist", as_of="2025-12-31T23:59:59.999Z")
    assert (status, body["error"]["code"]) == (404, "NO_VERSION_AT")
    assert "its first went live at 2026-01-01T00:00:00Z" in body["error"]["message"]
    # And the two dated versions compare like any two kept versions
    status, page = stack.get("/datasets/hist/diff", **{"from": f"{JANUARY}T12:00:00Z", "to": f"{JUNE}T12:00:00Z"})
    assert (status, page["from"], page["version"]) == (200, january, june)
    assert page["changes"]


def test_a_dated_folder_of_a_future_date_is_refused_naming_it(stack: Stack) -> None:
    history(stack, KEEPING)
    day = 86_400.0
    yesterday, tomorrow = (time.strftime("%Y-%m-%d", time.gmtime(time.time() + d)) for d in (-2 * day, 2 * day))
    for date in (tomorrow, yesterday):  # (a date after the first load is refused the same way: tests/unit)
        stack.put(f"hist/_history/{date}/data.tsv", tsv_bytes(read_tsv(V4_FILE, 100)[:100]))
    stack.drain()
    _, listed = _timeline(stack)
    states = {entry["date"]: entry for entry in listed["dated"]}
    assert states[yesterday]["status"] == "READY"
    refused = states[tomorrow]
    assert refused["status"] == "FAILED"
    assert f"{tomorrow} is in the future" in refused["reason"]
    report = stack.report(f"_reports/hist/{refused['version']}.json")
    assert (report["status"], report["problems"][0]["object"]) == ("FAILED", f"hist/_history/{tomorrow}/")
    assert (stack.dataset("hist")["version"], stack.dataset("hist")["status"]) == (3, "READY")
