"""The sweep counts the loads it had to take over (``LoadsStalled``, which the stack alarms on), and only those."""

from __future__ import annotations

from fencepost.loading.messages import Lane
from fencepost.model import LoadStatus
from tests.fakes import REPLACED_WHOLE, World, loader_settings
from tests.support import V4_FILE, read_tsv

ROWS = read_tsv(V4_FILE, 300)
KEY = "geo/a.tsv"


def tsv(rows: list[list[str]]) -> str:
    return "".join("\t".join(row) + "\n" for row in rows)


def test_a_load_the_sweep_fails_is_counted_as_stalled_and_failed() -> None:
    # Given a live version, and a next load whose chunks are lost
    world = World(loader_settings(chunk_items=50, stall_seconds=1800), folder=REPLACED_WHOLE)
    world.upload(KEY, tsv(ROWS[:150]))
    world.settle()
    world.upload(KEY, tsv(ROWS[150:]))
    world.settle(hold=lambda e: e.lane == Lane.DATA)
    world.queues.drop(lambda e: e.lane == Lane.DATA)
    metrics = world.telemetry.metrics.totals

    # When the sweep runs before the stall time / Then nothing is counted
    world.clock.advance(1000)
    assert world.sweep() == 0
    assert "LoadsStalled" not in metrics

    # When it runs after the stall time / Then the load it fails is counted once as stalled, once as failed
    world.clock.advance(1000)
    assert world.sweep() == 1
    world.settle()
    assert world.record().status == LoadStatus.FAILED
    assert metrics["LoadsStalled"] == 1
    assert metrics["LoadsFailed"] == 1

    # And later sweeps count nothing more
    world.clock.advance(4000)
    world.sweep()
    assert metrics["LoadsStalled"] == 1


def test_loads_that_progress_are_never_counted_as_stalled() -> None:
    world = World(loader_settings(chunk_items=50, stall_seconds=1800), folder=REPLACED_WHOLE)
    world.upload(KEY, tsv(ROWS[:150]))
    world.settle()

    world.clean_up()

    assert world.record().status == LoadStatus.READY
    assert "LoadsStalled" not in world.telemetry.metrics.totals
