"""History and ``retain_days`` on the in-memory fakes, with a controllable clock: every change of what is served is
an event of the history, a version stays kept for its folder's ``retain_days`` after it stopped being live (never
deleted inside them, whoever asks), and is deleted once they have passed, its instants then marked gone."""

from __future__ import annotations

import json

from fencepost.loading.cleanup import MAX_HOPPED_WAIT
from fencepost.loading.messages import Lane
from fencepost.model import BuildState, Phase
from tests.fakes import DATASET, REPLACED_WHOLE, World, loader_settings
from tests.support.loads import KEY, A, B, C, assert_no_surprises, assert_version, load, tsv

DAY = 86_400.0
GRACE = 960.0
WEEK = 7 * DAY


def kept_world(days: int) -> World:
    return World(loader_settings(chunk_items=50, delete_grace=GRACE), folder={**REPLACED_WHOLE, "retain_days": days})


def weekly(world: World, *versions: list[list[str]]) -> list[float]:
    """Load each rows in turn, a week apart; returns when each went live."""
    went_live = []
    for rows in versions:
        load(world, rows)
        since = world.record().live_since
        assert since is not None
        went_live.append(since)
        world.clock.advance(WEEK)
    return went_live


def test_every_change_of_what_is_served_is_an_event_of_the_history() -> None:
    # Given two versions, then a rollback and a roll-forward
    world = kept_world(0)
    first, second = weekly(world, A, B)
    back = world.clock()
    world.datasets.rollback(DATASET, back)
    world.clock.advance(60)
    forward = world.clock()
    world.datasets.rollback(DATASET, forward)
    # Then the history holds the four switches, in order, each at its instant
    timeline = world.datasets.timeline(DATASET)
    assert [(e.at, e.version) for e in timeline.events] == [(first, 1), (second, 2), (back, 1), (forward, 2)]
    # And each version's live periods follow from it (version 1 live twice)
    periods = timeline.periods()
    assert [(p.start, p.end) for p in periods[1]] == [(first, second), (back, forward)]
    assert [(p.start, p.end) for p in periods[2]] == [(second, back), (forward, None)]
    # And emptying the folder ends the last period: from then on nothing is served
    world.remove(KEY)
    world.settle()
    assert world.datasets.timeline(DATASET).events[-1].version is None


def test_a_version_is_kept_for_retain_days_after_it_stopped_being_live_and_deleted_after() -> None:
    # Given a folder keeping 30 days, and three weekly versions
    world = kept_world(30)
    live_since = weekly(world, A, B, C)
    record = world.record()
    assert (record.live, record.previous, record.retain_days) == (3, 2, 30)
    # Then version 1, out of service since version 2 went live, is kept: its deletion is due 30 days after that,
    # and it waits for the sweep rather than as a chain of delayed messages
    stopped = live_since[1]
    build = world.build_records()[1]
    assert (build.state, build.delete_after) == (BuildState.DELETING, stopped + 30 * DAY)
    assert stopped + 30 * DAY - world.clock() > MAX_HOPPED_WAIT
    assert [e for e in world.queues.pending if e.kind == "delete"] == []
    assert_version(world, 1, A)
    # When sweeps run until a day before it is due, it is still whole
    world.clock.advance(stopped + 29 * DAY - world.clock())
    world.sweep()
    world.settle()
    assert_version(world, 1, A)
    # And once its time and the sweep's stall window have passed, it is deleted, and its instants marked gone
    world.clock.advance(DAY + world.settings.stall_seconds + 1)
    world.sweep()
    world.settle()
    assert 1 not in world.stored_versions()
    assert 1 not in world.build_records()
    first = world.datasets.timeline(DATASET).events[0]
    assert (first.at, first.version, first.gone) == (live_since[0], 1, True)
    assert first.gone_at is not None
    assert first.gone_at <= world.clock() - GRACE  # marked gone first, its items deleted a grace after
    assert world.datasets.timeline(DATASET).oldest_kept() == live_since[1]
    assert_no_surprises(world)


def test_a_deletion_asked_for_inside_the_window_is_put_off_whoever_asks() -> None:
    # Given a folder keeping 30 days, and version 1 out of service since version 2 went live, two weeks ago
    world = kept_world(30)
    live_since = weekly(world, A, B, C)
    # When something asks for its deletion now (as a sweep does for a build left behind by a crash)
    world.service.sweeper.deletions.schedule(DATASET, 1, world.clock())
    world.settle()
    # Then it is kept, and its deletion is put off until its days have passed
    assert_version(world, 1, A)
    assert world.build_records()[1].delete_after == live_since[1] + 30 * DAY


def test_changing_only_retain_days_builds_nothing_and_takes_effect() -> None:
    # Given a dataset built with the default settings
    world = World(loader_settings(chunk_items=50, delete_grace=GRACE), folder=REPLACED_WHOLE)
    load(world, A)
    # When its folder's settings add retain_days only
    world.upload(f"{DATASET}/_settings.json", json.dumps({**REPLACED_WHOLE, "retain_days": 90}))
    world.settle()
    # Then no version is built (retention keeps versions, it does not change them), and the record knows it
    record = world.record()
    assert (record.live, record.load.phase, record.retain_days) == (1, Phase.UNCHANGED, 90)
    # And versions that stop being live from now on are kept 90 days
    load(world, B)
    load(world, C)
    stopped = world.datasets.timeline(DATASET).last_until(1)
    assert stopped is not None
    assert world.build_records()[1].delete_after == stopped + 90 * DAY


def test_without_retain_days_the_rule_of_rollback_only_holds() -> None:
    # Given the default settings and three versions
    world = World(loader_settings(chunk_items=50, delete_grace=GRACE), folder=REPLACED_WHOLE)
    weekly(world, A, B)
    load(world, C)
    # Then version 1 is deleted a grace after it stopped being live, as before histories were kept
    world.clean_up()
    assert 1 not in world.stored_versions()
    assert world.datasets.timeline(DATASET).gone() == {1}


def test_once_marked_gone_its_items_wait_a_grace_whatever_delivers_the_deletion_again() -> None:
    # Given the default settings and three weekly versions: version 1's deletion came due while version 3 loaded
    world = World(loader_settings(chunk_items=50, delete_grace=GRACE), folder=REPLACED_WHOLE)
    weekly(world, A, B)
    world.upload(KEY, tsv(C))
    world.settle(hold=lambda e: e.kind == "delete" and e.due > world.clock())
    # Then it was marked gone first, its items still whole
    marked = world.datasets.timeline(DATASET).gone_at(1)
    assert marked is not None
    assert world.datasets.timeline(DATASET).gone() == {1}
    assert_version(world, 1, A)
    # And a deletion delivered again before a grace has passed (a redelivery, or the sweep's) deletes nothing
    world.queues.post(json.dumps({"kind": "delete", "dataset": DATASET, "version": 1, "not_before": 0.0}), Lane.DATA)
    world.settle(hold=lambda e: e.due > world.clock())
    assert_version(world, 1, A)
    # And once a grace has passed since the marking, its items go
    world.clock.advance(marked + GRACE - world.clock())
    world.settle()
    assert 1 not in world.stored_versions()


def test_lowering_retain_days_brings_scheduled_deletions_forward() -> None:
    # Given a folder keeping 365 days, and version 1 out of service for two weeks
    world = kept_world(365)
    live_since = weekly(world, A, B, C)
    assert world.build_records()[1].delete_after == live_since[1] + 365 * DAY
    # When the folder's retain_days drop to 7 (no version is built for that)
    world.upload(f"{DATASET}/_settings.json", json.dumps({**REPLACED_WHOLE, "retain_days": 7}))
    world.settle()
    assert world.record().live == 3
    # Then the next sweeps delete version 1, whose 7 days have passed, and not version 2, still inside them
    world.clean_up()
    assert 1 not in world.stored_versions()
    assert_version(world, 2, B)
