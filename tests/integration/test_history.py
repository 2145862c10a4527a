"""History through the real loader and lookup handlers on DynamoDB Local: versions kept for ``retain_days``, their
timeline listed, and lookups ``as_of`` an instant answered from the version that was live then, by the overlap
rule over that version's file, at random instants and exactly at the switch instants."""

from __future__ import annotations

import random
import time

from fencepost.core.versions.history import format_instant, parse_instant
from tests.support.history import as_of_mismatches, history
from tests.support.stacks import Stack


def test_as_of_answers_the_file_that_was_live_at_each_instant(stack: Stack) -> None:
    versions, switches = history(stack)
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
    _, switches = history(stack)
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
    versions, switches = history(stack)
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
