"""The rules of dated folders (``fencepost.core.folders.backfill``): which folder a build request takes, which it
refuses."""

from __future__ import annotations

import pytest

from fencepost.core.folders.backfill import Dated, DateError, date_instant, next_step
from fencepost.core.versions.history import DAY, Event, Timeline

NOW = date_instant("2026-11-26") + 3600.0
LIVE = date_instant("2026-11-01") + 60.0  # the first live version's switch


def _live(*dated: tuple[str, int]) -> Timeline:
    """Dated versions at their dates, then live versions 10 and 11 from LIVE on."""
    return Timeline([*(Event(date_instant(d), v, dated=True) for d, v in dated), Event(LIVE, 10), Event(LIVE + 60, 11)])


def test_a_dated_folder_is_named_by_a_calendar_date_from_1970() -> None:
    assert date_instant("2025-01-31") == 1738281600.0
    for bad in ("2025-1-31", "2025-02-30", "20250131", "1969-12-31", "２０２５-01-01", "2025-01-01T00:00"):
        with pytest.raises(DateError):
            date_instant(bad)


def test_the_earliest_changed_folder_is_built_whatever_the_upload_order() -> None:
    folders = {"2026-06-01": "b", "2026-01-01": "a", "2026-03-01": "c"}
    states = {"2026-06-01": Dated("2026-06-01", "b", 4, "LOADING")}  # built first: it was uploaded first
    step = next_step(folders, states, _live(("2026-06-01", 4)), retain_days=3650, now=NOW)
    assert (step.date, step.sources, step.refusal, step.removed) == ("2026-01-01", "a", None, ())
    # Once every folder's sources are recorded, whatever became of them, nothing is left to do
    states = {date: Dated(date, sources, 4, "FAILED", "x") for date, sources in folders.items()}
    assert next_step(folders, states, _live(), retain_days=3650, now=NOW).date is None
    # A folder whose objects or settings changed is built again
    folders["2026-03-01"] = "c2"
    assert next_step(folders, states, _live(), retain_days=3650, now=NOW).date == "2026-03-01"


def test_a_folder_that_is_gone_takes_its_state_with_it() -> None:
    states = {
        "2026-01-01": Dated("2026-01-01", "a", 4, "LOADING"),
        "2026-02-01": Dated("2026-02-01", "b", 5, "LOADING"),
    }
    step = next_step(
        {"2026-02-01": "b"}, states, _live(("2026-01-01", 4), ("2026-02-01", 5)), retain_days=3650, now=NOW
    )
    assert (step.removed, step.date) == ((states["2026-01-01"],), None)


def test_a_date_on_or_after_the_first_live_version_is_refused_naming_it() -> None:
    step = next_step({"2026-11-02": "s"}, {}, _live(), retain_days=3650, now=NOW)
    assert step.date == "2026-11-02"
    assert step.refusal is not None
    assert "2026-11-02 is not before the dataset's first live version (live from 2026-11-01T00:01:00Z)" in step.refusal
    # A date is its first instant: the day the first version went live is before it (for a minute), not after
    assert next_step({"2026-11-01": "s"}, {}, _live(), retain_days=3650, now=NOW).refusal is None
    at_midnight = Timeline([Event(date_instant("2026-11-01"), 10)])
    assert next_step({"2026-11-01": "s"}, {}, at_midnight, retain_days=3650, now=NOW).refusal is not None
    # Dated versions are not live versions: their own events do not count as the first live one
    placed = {"2026-05-01": Dated("2026-05-01", "p", 4, "LOADING")}
    step = next_step(
        {"2026-05-01": "p", "2026-10-31": "s"}, placed, _live(("2026-05-01", 4)), retain_days=3650, now=NOW
    )
    assert (step.date, step.refusal) == ("2026-10-31", None)
    first = _live(("2026-05-01", 4)).first_live()
    assert first is not None
    assert first.at == LIVE
    assert Timeline([Event(1.0, 4, dated=True)]).first_live() is None
    # A live version older than the history (no live event) is the first live version all the same
    step = next_step(
        {"2026-10-31": "s"}, {}, Timeline([]), retain_days=3650, now=NOW, live_since=date_instant("2026-10-01")
    )
    assert step.refusal is not None
    assert "not before the dataset's first live version (live from 2026-10-01T00:00:00Z)" in step.refusal


def test_a_future_date_is_refused() -> None:
    step = next_step({"2026-11-27": "s"}, {}, Timeline([]), retain_days=3650, now=NOW)
    assert step.refusal is not None
    assert "in the future" in step.refusal


def test_a_folder_its_retain_days_would_not_keep_is_refused_with_the_days_needed() -> None:
    # 2026-01-01 answers until 2026-03-01 (the next dated folder): 270 days before NOW
    folders = {"2026-01-01": "a", "2026-03-01": "b"}
    step = next_step(folders, {}, _live(), retain_days=30, now=NOW)
    assert step.refusal is not None
    assert "retain_days (30) would not keep a version that stopped answering at 2026-03-01T00:00:00Z" in step.refusal
    needed = int((NOW - date_instant("2026-03-01")) // DAY) + 1
    assert f"set retain_days to at least {needed}" in step.refusal
    assert next_step(folders, {}, _live(), retain_days=needed, now=NOW).refusal is None
    # The last dated folder answers until the first live version (25 days before NOW); none after it: kept
    assert next_step({"2026-10-01": "a"}, {}, _live(), retain_days=26, now=NOW).refusal is None
    assert next_step({"2026-10-01": "a"}, {}, _live(), retain_days=24, now=NOW).refusal is not None
    assert next_step({"2026-10-01": "a"}, {}, Timeline([]), retain_days=0, now=NOW).refusal is None


def test_a_dated_folder_shows_ready_once_its_build_is_placed_in_the_history() -> None:
    state = Dated("2026-01-01", "a", 4)
    assert state.shown(Timeline([Event(LIVE, 10)])) == "LOADING"
    assert state.shown(_live(("2026-01-01", 4))) == "READY"
    failed = Dated("2026-01-01", "a", 4, "FAILED", "the build failed")
    assert failed.shown(_live(("2026-01-01", 4))) == "FAILED"


def test_a_refusal_is_asked_again_and_built_once_its_rule_no_longer_holds() -> None:
    folders = {"2026-01-01": "a", "2026-03-01": "b"}
    refusal = next_step(folders, {}, _live(), retain_days=30, now=NOW).refusal
    refused = {"2026-01-01": Dated("2026-01-01", "a", 4, "FAILED", refusal, refused=True)}
    # While the rule holds, nothing is done (no build request asks again and again)
    assert next_step(folders, refused, _live(), retain_days=30, now=NOW).date == "2026-03-01"
    done = {**refused, "2026-03-01": Dated("2026-03-01", "b", 5)}
    assert next_step(folders, done, _live(), retain_days=30, now=NOW).date is None
    # Once retain_days keep it, it is built
    step = next_step(folders, done, _live(), retain_days=3650, now=NOW)
    assert (step.date, step.refusal) == ("2026-01-01", None)
    # A folder whose build failed (no rule) waits for its objects to change
    failed = {**done, "2026-01-01": Dated("2026-01-01", "a", 4, "FAILED", "the build failed")}
    assert next_step(folders, failed, _live(), retain_days=3650, now=NOW).date is None


def test_a_failed_folder_does_not_end_the_period_of_the_one_before() -> None:
    # 2026-01-01 answers until 2026-03-01 only if 2026-03-01 is built: failed, the first live version ends it
    folders = {"2026-01-01": "a", "2026-03-01": "b"}
    failed = {"2026-03-01": Dated("2026-03-01", "b", 5, "FAILED", "the build failed")}
    assert next_step(folders, failed, _live(), retain_days=30, now=NOW).refusal is None
    assert next_step(folders, {}, _live(), retain_days=30, now=NOW).refusal is not None
