"""When a source is due, what a check leaves, and when its data counts as stale."""

from __future__ import annotations

import json

from fencepost.core.sources.schedule import Download, Outcome, SourceState
from fencepost.core.sources.spec import Source, parse_source

HOUR = 3600 * 1000


def source(**extra: object) -> Source:
    document = {"url": "https://e.org/drop.txt", "every": "1h", **extra}
    return parse_source(json.dumps(document).encode(), "s", least_every=60, https_only=True)


def test_a_new_source_is_due_at_once_then_after_its_interval() -> None:
    feed = source()
    state = SourceState()
    assert state.due(feed, 0)
    state = state.checked(feed, Outcome.CHANGED, 1_000, least_every=60)
    assert not state.due(feed, 1_000 + HOUR - 1)
    assert state.due(feed, 1_000 + HOUR)
    assert (state.last_checked, state.last_changed, state.last_ok, state.checks) == (1_000, 1_000, 1_000, 1)


def test_unchanged_checks_are_counted_and_keep_the_last_change() -> None:
    feed = source()
    state = SourceState().checked(feed, Outcome.CHANGED, 0, least_every=60)
    state = state.checked(feed, Outcome.UNCHANGED, HOUR, least_every=60)
    state = state.checked(feed, Outcome.UNCHANGED, 2 * HOUR, least_every=60)
    assert (state.checks, state.unchanged, state.last_changed, state.last_ok) == (3, 2, 0, 2 * HOUR)


def test_failures_are_retried_sooner_doubling_up_to_the_interval() -> None:
    feed = source()
    state, waits = SourceState(), []
    for _ in range(8):
        before = state.last_checked or 0
        state = state.checked(feed, Outcome.FAILED, before + 1, least_every=60, reason="the server answered 503")
        waits.append((state.next_check - state.last_checked) // 1000)  # type: ignore[operator]
    assert waits == [60, 120, 240, 480, 960, 1920, 3600, 3600]
    assert state.failures == 8
    assert state.reason == "the server answered 503"
    assert state.last_ok is None
    state = state.checked(feed, Outcome.UNCHANGED, 10 * HOUR, least_every=60)
    assert state.failures == 0
    assert state.reason == ""


def test_a_changed_source_is_due_at_once() -> None:
    feed = source()
    state = SourceState().checked(feed, Outcome.CHANGED, 0, least_every=60)
    assert not state.due(feed, 1)
    assert state.due(source(every="2h"), 1)
    assert (state.url, state.every) == ("https://e.org/drop.txt", 3600)


def test_a_paused_source_is_never_due_and_never_stale() -> None:
    feed = source(paused=True)
    state = SourceState().checked(source(), Outcome.CHANGED, 0, least_every=60).paused_by(feed)
    assert state.to_api()["paused"] is True
    assert state.to_api()["next_check"] is None
    assert not state.due(feed, 100 * HOUR)


def test_stale_after_three_intervals_without_a_good_check() -> None:
    feed = source()
    assert not SourceState().stale_after(3600, 10 * HOUR)  # never checked: nothing to say yet
    state = SourceState().checked(feed, Outcome.UNCHANGED, 0, least_every=60)
    state = state.checked(feed, Outcome.FAILED, 2 * HOUR, least_every=60)
    assert not state.stale_after(3600, 3 * HOUR)
    assert state.stale_after(3600, 3 * HOUR + 1)


def test_a_new_source_that_fails_is_stale_only_three_intervals_after_its_first_check() -> None:
    feed = source()
    state = SourceState().checked(feed, Outcome.FAILED, 5 * HOUR, least_every=60)
    assert state.first_checked == 5 * HOUR
    assert not state.stale_after(3600, 5 * HOUR + 1)  # one failure of a new source: failing soon, not stale
    assert state.stale_after(3600, 8 * HOUR + 1)


def test_the_state_survives_its_json() -> None:
    feed = source()
    kept = {"https://e.org/drop.txt": Download('"a"', "Tue, 14 Nov 2023 22:13:20 GMT", "ab", (("k", "e"),))}
    state = SourceState().checked(feed, Outcome.CHANGED, 5, least_every=60, downloads=kept)
    assert SourceState.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_what_the_api_shows() -> None:
    feed = source()
    state = SourceState().checked(feed, Outcome.FAILED, 1_700_000_000_000, least_every=60, reason="answered 503")
    assert state.to_api() == {
        "url": "https://e.org/drop.txt",
        "every_seconds": 3600,
        "paused": False,
        "outcome": "FAILED",
        "reason": "answered 503",
        "last_checked": "2023-11-14T22:13:20Z",
        "last_changed": None,
        "next_check": "2023-11-14T22:14:20Z",
        "checks": 1,
        "unchanged": 0,
        "failures_in_a_row": 1,
    }
