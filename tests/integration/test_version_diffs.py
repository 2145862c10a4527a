"""``GET /datasets/{name}/diff?from=&to=`` through the real loader and lookup handlers on DynamoDB Local and a local
S3: the changed stretches between any two kept versions, paged from their cursors, agree address by address with
the two versions' files, and the pages stop at their scan of unchanged stretches."""

from __future__ import annotations

import bisect
import random
from typing import Any

import pytest

from fencepost.core.space.addresses import format_address, parse_address
from fencepost.core.versions.history import format_instant, parse_instant
from tests.support.history import Version, history
from tests.support.stacks import Stack

SCAN = 1000  # the least DIFF_SCAN_PIECES: versions 1 and 2 share 1,500 rows, so a page stops inside them


def _pages(stack: Stack, **query: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every change, a page at a time from each page's cursor; and the pages."""
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        asked = {"cursor": cursor, "limit": query.get("limit", "100")} if cursor else query  # a cursor pins both
        status, page = stack.get("/datasets/hist/diff", **asked)
        assert status == 200, page
        pages.append(page)
        cursor = page["next"]
        if cursor is None:
            return [change for page in pages for change in page["changes"]], pages
        assert len(pages) < 500


class _Changes:
    """The changes of a diff, found by address (their stretches do not overlap)."""

    def __init__(self, changes: list[dict[str, Any]]) -> None:
        spans = sorted((parse_address(c["start"])[1], parse_address(c["end"])[1], k) for k, c in enumerate(changes))
        self.starts = [start for start, _, _ in spans]
        self.spans, self.changes = spans, changes

    def at(self, address: int) -> dict[str, Any] | None:
        k = bisect.bisect_right(self.starts, address) - 1
        if k < 0 or address > self.spans[k][1]:
            return None
        return self.changes[self.spans[k][2]]


def _check(changes: list[dict[str, Any]], old: Version, new: Version, rng: random.Random) -> int:
    """Random addresses over both versions' spans: in a change exactly when their answers differ, with the new
    version's data; returns how many were checked."""
    low, high = min(old.low, new.low) - 2**12, max(old.high, new.high) + 2**12
    mismatches = 0
    found = _Changes(changes)
    for address in [rng.randint(low, high) for _ in range(3000)]:
        (old_range, old_data), (new_range, new_data) = old.expected(address), new.expected(address)
        change = found.at(address)
        if (old_range, old_data) == (new_range, new_data):
            mismatches += change is not None
            continue
        kind = "added" if old_range is None else "removed" if new_range is None else "changed"
        data = None if new_data is None else {"col3": new_data[0]}
        mismatches += change is None or (change["change"], change["data"]) != (kind, data)
    assert mismatches == 0
    return 3000


@pytest.mark.parametrize("stack", [{"DIFF_SCAN_PIECES": str(SCAN)}], indirect=True)
def test_the_diff_between_any_two_kept_versions_agrees_with_their_files(stack: Stack) -> None:
    versions, switches = history(stack)
    rng = random.Random(20)
    # From version 1 to version 3 (no row in common), a page of 50 at a time
    changes, pages = _pages(stack, **{"from": "1", "to": "3", "limit": "50"})
    assert {(page["dataset"], page["from"], page["version"]) for page in pages} == {("hist", 1, 3)}
    assert all(len(page["changes"]) <= 50 for page in pages)
    assert len(pages) == -(-len(changes) // 50)  # every page full but the last: no scan stop with no row in common
    starts = [parse_address(change["start"])[1] for change in changes]
    assert starts == sorted(starts)
    assert _check(changes, versions[1], versions[3], rng) == 3000

    # From the instant version 1 went live to the live version (3): the same diff, whatever the page size
    first = format_instant(switches[0][2])
    assert parse_instant(first, switches[-1][2] + 1) >= switches[0][1]
    same, _ = _pages(stack, **{"from": first, "limit": "500"})
    assert same == changes

    # Versions 1 and 2 share 1,500 rows: a page stops after walking SCAN unchanged stretches, with a cursor
    changes, pages = _pages(stack, **{"from": "2", "to": "1", "limit": "1000"})
    assert any(len(page["changes"]) < 1000 and page["next"] for page in pages)
    assert _check(changes, versions[2], versions[1], rng) == 3000

    # A version compared with itself has no changes
    status, page = stack.get("/datasets/hist/diff", **{"from": "2", "to": "2"})
    assert (status, page["changes"], page["next"]) == (200, [], None)


def test_the_diff_between_versions_refuses_what_it_cannot_answer(stack: Stack) -> None:
    history(stack)
    refusals = [
        ({"to": "1"}, 400, "INVALID_REQUEST"),
        ({"from": "not-a-version"}, 400, "INVALID_REQUEST"),
        ({"from": "2999-01-01T00:00:00Z"}, 400, "INVALID_REQUEST"),
        ({"from": "1970-01-02T00:00:00Z"}, 404, "NO_VERSION_AT"),
        ({"from": "9"}, 404, "NO_VERSION_AT"),
        ({"from": "1", "cursor": "not-a-cursor"}, 400, "INVALID_REQUEST"),
    ]
    for query, status, code in refusals:
        got, body = stack.get("/datasets/hist/diff", **query)
        assert (got, body["error"]["code"]) == (status, code), (query, body)
    # A cursor of one dataset is not taken for another
    _, page = stack.get("/datasets/hist/diff", **{"from": "1", "limit": "1"})
    status, body = stack.get("/datasets/other/diff", **{"from": "1", "cursor": page["next"]})
    assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST")
    # Without from or to, the latest build's own diff answers as before
    status, body = stack.get("/datasets/hist/diff")
    assert (status, body["version"], body["status"]) == (200, 3, "READY")
    assert format_address(4, 0) == "0.0.0.0"
