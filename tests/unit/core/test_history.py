"""The history's rules (``fencepost.core.versions.history``): which version answers an instant, live periods through
rollbacks and retirement, what is still kept, and the instants the API accepts."""

from __future__ import annotations

import random

import pytest

from fencepost.core.versions.history import (
    DAY,
    Event,
    InstantError,
    Timeline,
    changed_since,
    format_instant,
    keep_until,
    parse_instant,
)

NOW = 1_795_000_000.0


def test_a_version_is_live_from_its_switch_instant_inclusive_until_the_next_one_exclusive() -> None:
    timeline = Timeline([Event(100.0, 1), Event(200.0, 2), Event(300.0, None), Event(400.0, 3)])
    assert timeline.at(99.999) is None
    assert timeline.at(100.0) == Event(100.0, 1)
    assert timeline.at(199.999) == Event(100.0, 1)
    assert timeline.at(200.0) == Event(200.0, 2)
    assert timeline.at(300.0) == Event(300.0, None)  # retired: nothing served
    assert timeline.at(10_000.0) == Event(400.0, 3)


def test_the_version_at_an_instant_is_the_brute_force_answer() -> None:
    rng = random.Random(5)
    events = [Event(float(at), rng.choice([1, 2, 3, None])) for at in sorted(rng.sample(range(1, 10_000), 60))]
    timeline = Timeline(rng.sample(events, len(events)))  # in any order
    for _ in range(2_000):
        instant = rng.uniform(0, 11_000)
        before = [event for event in events if event.at <= instant]
        assert timeline.at(instant) == (before[-1] if before else None)


def test_periods_follow_rollbacks_and_retirement() -> None:
    timeline = Timeline([Event(1.0, 1), Event(2.0, 2), Event(3.0, 1), Event(4.0, 2), Event(5.0, None), Event(6.0, 3)])
    periods = timeline.periods()
    assert [(p.start, p.end) for p in periods[1]] == [(1.0, 2.0), (3.0, 4.0)]
    assert [(p.start, p.end) for p in periods[2]] == [(2.0, 3.0), (4.0, 5.0)]
    assert [(p.start, p.end) for p in periods[3]] == [(6.0, None)]
    assert (timeline.last_until(1), timeline.last_until(2), timeline.last_until(3)) == (4.0, 5.0, None)
    assert timeline.last_until(9) is None  # never live


def test_gone_versions_are_remembered_and_the_oldest_kept_instant_skips_them() -> None:
    timeline = Timeline([Event(1.0, 1, gone=True), Event(2.0, 2), Event(3.0, 1, gone=True), Event(4.0, 3)])
    assert timeline.gone() == {1}
    assert (timeline.kept(1), timeline.kept(2), timeline.kept(9)) == (False, True, False)
    assert [event.at for event in timeline.of(1)] == [1.0, 3.0]
    assert timeline.oldest_kept() == 2.0
    assert Timeline([Event(1.0, 1, gone=True)]).oldest_kept() is None


def test_a_version_is_kept_its_days_and_never_less_than_the_grace() -> None:
    assert keep_until(1000.0, 0, 960.0) == 1960.0
    assert keep_until(1000.0, 30, 960.0) == 1000.0 + 30 * DAY


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("2026-11-01T12:00:00Z", 1_793_534_400.0),
        ("2026-11-01t12:00:00z", 1_793_534_400.0),
        ("2026-11-01T13:30:00+01:30", 1_793_534_400.0),
        ("2026-11-01T12:00:00.250Z", 1_793_534_400.25),
        ("2016-12-31T23:59:60Z", 1_483_228_800.0),  # a leap second: the instant after 23:59:59, as POSIX counts
        ("2016-12-31T23:59:60.500Z", 1_483_228_800.5),
        ("2017-01-01T05:29:60+05:30", 1_483_228_800.0),
    ],
)
def test_rfc_3339_instants_are_read_with_their_offset(text: str, instant: float) -> None:
    assert parse_instant(text, NOW) == instant


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("2026-11-01T12:00:00", "RFC 3339"),  # no offset
        ("2026-11-01", "RFC 3339"),
        ("yesterday", "RFC 3339"),
        ("2026-13-01T00:00:00Z", "RFC 3339"),
        ("2026-11-01T12:00:61Z", "RFC 3339"),
        ("2027-01-01T00:00:00Z", "in the future"),
        ("2026-11-01T12:00:00" + "0" * 50 + "Z", "RFC 3339"),
        ("2020-W01-1T00:00:00Z", "RFC 3339"),  # an ISO week date
        ("2026-11-01T12:00:00+0000", "RFC 3339"),  # an offset without its colon
        ("２０２６-11-01T12:00:00Z", "RFC 3339"),  # digits that are not ASCII
        ("9999-12-31T23:59:59-23:59", "future"),  # a year past 9999 in UTC
        ("0001-01-01T00:00:00+23:59", "before 1970"),  # a year before 1 in UTC
        ("1969-12-31T23:59:59Z", "before 1970"),
    ],
)
def test_anything_else_is_refused_with_a_reason(text: str, says: str) -> None:
    with pytest.raises(InstantError, match=says):
        parse_instant(text, NOW)


def test_instants_are_written_in_utc_to_the_millisecond_when_they_have_any() -> None:
    assert format_instant(1_793_534_400.0) == "2026-11-01T12:00:00Z"
    assert format_instant(1_793_534_400.25) == "2026-11-01T12:00:00.250Z"
    assert format_instant(1_793_534_400.9996) == "2026-11-01T12:00:00.999Z"  # truncated, as the history keeps it


def test_the_change_in_a_window_sums_what_the_builds_that_went_live_in_it_changed() -> None:
    timeline = Timeline(
        [
            Event(100.0, 1),  # a first version: nothing was served before, no figure
            Event(200.0, 2, changed=(4.0, 0.5)),
            Event(300.0, 3, changed=(1.0, 0.25)),
            Event(350.0, 2),  # a rollback: a person chose a version served before, no figure
            Event(360.0, 9, dated=True, changed=(50.0, 50.0)),  # placed from a dated folder: never live
            Event(400.0, 4, changed=(0.5, 0.0)),
        ]
    )
    assert changed_since(timeline, 0.0) == (5.5, 0.75)
    assert changed_since(timeline, 200.0) == (5.5, 0.75)  # from its start inclusive
    assert changed_since(timeline, 200.001) == (1.5, 0.25)
    assert changed_since(timeline, 401.0) == (0.0, 0.0)
