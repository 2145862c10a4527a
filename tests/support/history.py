"""A dataset's history on a ``Stack`` (``tests/support/stacks.py``): three versions of overlapping slices of the
shared file, a rollback and a roll-forward (``history``), and lookups ``as_of`` instants checked against the file
that was live then (``Version``, ``as_of_mismatches``)."""

from __future__ import annotations

import json
import random
import time
from typing import Any

from fencepost.core.space.addresses import format_address, parse_boundary
from fencepost.core.versions.history import format_instant, parse_instant
from tests.reference import Reference, range_span
from tests.support import V4_FILE, LambdaContext, event, read_tsv
from tests.support.lookups import tsv_bytes
from tests.support.stacks import Stack

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


def history(
    stack: Stack, settings: dict[str, Any] = SETTINGS
) -> tuple[dict[int, Version], list[tuple[int, float, float]]]:
    """Versions 1, 2 and 3 of overlapping slices of the shared file, then a rollback to 2 and a roll-forward to 3;
    returns the versions, and what went live inside which bracket of wall-clock time."""
    from fencepost.handlers.admin import main as admin

    rows = read_tsv(V4_FILE, 6000)
    versions = {1: Version(rows[0:3000]), 2: Version(rows[1500:4500]), 3: Version(rows[3000:6000])}
    stack.put("hist/_settings.json", json.dumps(settings))
    switches = []
    for number, version in versions.items():
        before = time.time()
        stack.put("hist/data.tsv", tsv_bytes(version.rows))
        stack.drain()
        switches.append((number, before, time.time()))
        time.sleep(0.01)
    for number in (2, 3):
        before = time.time()
        assert admin(["rollback", "hist"]) == 0
        switches.append((number, before, time.time()))
        time.sleep(0.01)
    return versions, switches
