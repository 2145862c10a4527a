"""History through the real loader and lookup handlers on DynamoDB Local: versions kept for ``retain_days``, their
timeline listed, and lookups ``as_of`` an instant answered from the version that was live then, by the overlap
rule over that version's file, at random instants and exactly at the switch instants."""

from __future__ import annotations

import json
import random
import time
from typing import Any

from fencepost.core.space.addresses import format_address, parse_boundary
from fencepost.core.versions.history import format_instant, parse_instant
from tests.integration.conftest import Stack
from tests.integration.test_loader import _tsv
from tests.reference import Reference, range_span
from tests.support import V4_FILE, LambdaContext, event, read_tsv

SETTINGS = {"retain_days": 1, "max_removed_percent": None, "max_change_percent": None}


def _post(stack: Stack, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    ev = event("lookup-post")
    ev["body"] = json.dumps(body)
    response = stack.lookup.handler(ev, LambdaContext())
    return response["statusCode"], json.loads(response["body"])


class Version:
    """One version's file, and what the overlap rule answers from it."""

    def __init__(self, rows: list[list[str]]) -> None:
        self.rows = rows
        bounds = [(parse_boundary(row[0])[1], parse_boundary(row[1])[1]) for row in rows]
        self.reference = Reference([start for start, _ in bounds], [end for _, end in bounds])
        self.low, self.high = min(s for s, _ in bounds), max(e for _, e in bounds)

    def expected(self, address: int) -> tuple[dict[str, Any] | None, list[str] | None]:
        row = self.reference.answer(address)
        if row is None:
            return None, None
        start, end = parse_boundary(self.rows[row][0])[1], parse_boundary(self.rows[row][1])[1]
        return range_span(4, start, end), self.rows[row][2:]


def as_of_mismatches(
    stack: Stack,
    versions: dict[int, Version],
    starts: list[tuple[float, int]],
    instants: list[float],
    rng: random.Random,
) -> tuple[int, int]:
    """Looks up 100 random addresses around the served version's span at each instant, ``as_of`` it; returns how
    many answers were checked and how many differ from the overlap rule over the file served then (``starts``:
    each period's start and version)."""
    now = time.time()
    checked = mismatches = 0
    for instant in instants:
        shown = format_instant(instant)
        asked = parse_instant(shown, now)  # the instant the service reads: to the millisecond
        served = max((at, v) for at, v in starts if at <= asked)[1]
        version = versions[served]
        addresses = [rng.randint(version.low - 2**16, version.high + 2**16) for _ in range(100)]
        status, body = _post(
            stack, {"ips": [format_address(4, a) for a in addresses], "dataset": "hist", "as_of": shown}
        )
        assert status == 200, body
        for address, result in zip(addresses, body["results"], strict=True):
            expected_range, expected_data = version.expected(address)
            got = (result.get("version"), result.get("as_of"), result.get("range"), result.get("data"))
            data = None if expected_data is None else {"col3": expected_data[0]}
            mismatches += got != (served, shown, expected_range, data)
            checked += 1
    return checked, mismatches


def _history(
    stack: Stack, settings: dict[str, Any] = SETTINGS
) -> tuple[dict[int, Version], list[tuple[int, float, float]]]:
    """Versions 1, 2 and 3 of overlapping slices of the shared file, then a rollback to 2 and a roll-forward to 3;
    returns the versions, and what went live inside which bracket of wall-clock time."""
    from fencepost.handlers.admin import main as admin

    rows = read_tsv(V4_FILE)[:6000]
    versions = {1: Version(rows[0:3000]), 2: Version(rows[1500:4500]), 3: Version(rows[3000:6000])}
    stack.put("hist/_settings.json", json.dumps(settings))
    switches = []
    for number, version in versions.items():
        before = time.time()
        stack.put("hist/data.tsv", _tsv(version.rows))
        stack.drain()
        switches.append((number, before, time.time()))
        time.sleep(0.01)
    for number in (2, 3):
        before = time.time()
        assert admin(["rollback", "hist"]) == 0
        switches.append((number, before, time.time()))
        time.sleep(0.01)
    return versions, switches


def test_as_of_answers_the_file_that_was_live_at_each_instant(stack: Stack) -> None:
    versions, switches = _history(stack)
    # The timeline lists every kept version with each time it was live, and each switch inside its bracket
    status, listed = stack.get("/datasets/hist/versions")
    assert status == 200, listed
    assert (listed["live"], listed["retain_days"], listed["next"]) == (3, 1, None)
    periods = {entry["version"]: entry["live"] for entry in listed["versions"]}
    assert [entry["version"] for entry in listed["versions"]] == [3, 2, 1]  # the latest live period first
    starts = sorted((parse_instant(p["from"], time.time()), v) for v, ps in periods.items() for p in ps)
    assert [v for _, v in starts] == [number for number, _, _ in switches]
    for (at, _), (_, before, after) in zip(starts, switches, strict=True):
        assert before - 0.001 <= at <= after + 0.001
    assert periods[3][0]["until"] is None
    assert all(p["until"] for v in (1, 2) for p in periods[v])
    assert (listed["versions"][0]["ranges"], listed["versions"][0]["kept_until"]) == (3000, None)

    # Address-instant pairs: random instants across the whole history, and every switch instant exactly and
    # a millisecond before it (a version is live from its switch instant inclusive)
    rng = random.Random(26)
    first, now = starts[0][0], time.time()
    instants = [at for at, _ in starts] + [at - 0.001 for at, _ in starts[1:]]
    instants += [rng.uniform(first, now) for _ in range(200 - len(instants))]
    checked, mismatches = as_of_mismatches(stack, versions, starts, instants, rng)
    assert (checked, mismatches) == (20_000, 0)


def test_instants_no_kept_version_answers_are_refused_plainly(stack: Stack) -> None:
    _, switches = _history(stack)
    first = switches[0][1] - 60
    status, body = stack.get("/lookup", ip="1.0.0.1", dataset="hist", as_of=format_instant(first))
    assert (status, body["error"]["code"]) == (404, "NO_VERSION_AT")
    assert "first went live at" in body["error"]["message"]
    status, body = stack.get("/lookup", ip="1.0.0.1", dataset="hist", as_of="2999-01-01T00:00:00Z")
    assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST")
    status, body = stack.get("/lookup", ip="1.0.0.1", dataset="hist", version="9")
    assert (status, body["error"]["code"]) == (404, "NO_VERSION_AT")
    # A kept version answers whatever it is now (version 1: superseded, kept for its retain_days)
    status, body = stack.get("/lookup", ip="1.0.0.1", dataset="hist", version="1")
    assert (status, body["version"]) == (200, 1)
    assert "as_of" not in body


def test_listings_of_the_past_read_the_version_live_then_and_their_cursor_keeps_it(stack: Stack) -> None:
    versions, switches = _history(stack)
    during_first = format_instant((switches[0][2] + switches[1][1]) / 2)  # after version 1 went live, before 2
    status, page = stack.get("/ranges", dataset="hist", as_of=during_first, limit="5")
    assert status == 200, page
    assert (page["version"], page["as_of"]) == (1, during_first)
    first_rows = versions[1].rows[:5]
    assert [(r["start"], r["end"]) for r in page["ranges"]] == [(row[0], row[1]) for row in first_rows]
    # The next page stays on version 1, though version 3 is live
    status, following = stack.get("/ranges", dataset="hist", limit="5", cursor=page["next"])
    assert (status, following["version"]) == (200, 1)
    assert following["ranges"][0]["start"] == versions[1].rows[5][0]
    status, live = stack.get("/ranges", dataset="hist", limit="1")
    assert (live["version"], live["ranges"][0]["start"]) == (3, versions[3].rows[0][0])
