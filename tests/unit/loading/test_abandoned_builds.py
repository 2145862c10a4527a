"""Abandoned builds on the in-memory fakes: whatever a writer still writes after its build was abandoned is deleted
once clean-up has run, and every build transition is conditional and checked."""

from __future__ import annotations

import pytest

from fencepost.errors import NotLatestRequest
from fencepost.loading.delivery import Delivery
from fencepost.loading.messages import Lane
from fencepost.model import UNFINISHED, BuildState, LoadStatus
from fencepost.settings import LoaderSettings, TableSettings
from infra.sizes import LOADER_TIMEOUT_MINUTES
from tests.fakes import DATASET, REPLACED_WHOLE, Envelope, World, loader_settings
from tests.support.loads import KEY, A, B, C, assert_no_surprises, assert_version, load, tsv


def deliver_due(world: World) -> None:
    """Deliver every message due now, without moving the clock (what runs while another invocation writes)."""
    while due := [e for e in world.queues.waiting() if e.due <= world.clock()]:
        world.queues.deliver(due[0])


def test_a_late_chunk_writer_leaves_nothing_behind_once_clean_up_has_run() -> None:
    # Given version 1 live, and build 2 planned: its chunks wait on the data queue
    world = World(loader_settings(chunk_items=50, stall_seconds=300), folder=REPLACED_WHOLE)
    load(world, A)
    world.upload(KEY, tsv(B))
    world.settle(hold=lambda e: e.lane == Lane.DATA)
    late: Envelope = world.queues.drop(lambda e: e.kind == "chunk")
    # When a writer takes one chunk, and while it writes, the build is abandoned (the sweep finds it stalled)
    # and everything then due runs: the other chunks, and any deletion
    abandoned: list[BuildState] = []

    def meanwhile(step: str) -> None:
        if step != "FakeWriter.put":
            return
        world.faults.hook = None
        world.clock.advance(301)
        assert world.sweep() == 1
        abandoned.append(world.build_records()[2].state)
        deliver_due(world)

    delivery = Delivery(world.clock.monotonic() + world.queues.invocation_seconds, 1)
    world.faults.hook = meanwhile
    world.service.handle(late.body, delivery)  # the late writer's items land after the abandonment
    assert abandoned == [BuildState.DELETING]  # abandoned, and its deletion scheduled
    assert world.record().status == LoadStatus.FAILED
    # Then once clean-up has run, nothing of build 2 is left: no item, no header, no build record
    world.clean_up()
    assert world.items(2) == {}
    assert world.stored_versions() == {1}
    assert set(world.build_records()) == {1}
    assert_version(world, 1, A)
    assert_no_surprises(world)


def test_an_abandoned_build_is_deleted_only_after_its_writers_deadline() -> None:
    # Given a build abandoned at t
    world = World(loader_settings(chunk_items=50, stall_seconds=300), folder=REPLACED_WHOLE)
    load(world, A)
    world.upload(KEY, tsv(B))
    world.settle(hold=lambda e: e.lane == Lane.DATA)
    world.clock.advance(301)
    world.sweep()
    abandoned_at = world.clock()
    # Then its deletion waits for the loader function's timeout: a writer that began before may still write
    (deletion,) = [e for e in world.queues.pending if e.kind == "delete"]
    assert deletion.fields["not_before"] == abandoned_at + world.settings.writer_timeout
    assert world.build_records()[2].state == BuildState.DELETING


def test_the_writers_deadline_is_the_loader_functions_timeout() -> None:
    settings = LoaderSettings.from_env(
        {"TABLE_NAME": "t", "BUCKET_NAME": "b", "CONTROL_QUEUE_URL": "c", "DATA_QUEUE_URL": "d"}
    )
    assert settings.writer_timeout >= LOADER_TIMEOUT_MINUTES * 60
    assert LoaderSettings(TableSettings("t"), "b", "c", "d").writer_timeout == settings.writer_timeout


@pytest.mark.parametrize(
    "moment", ["FakeBuilds.set_state", "FakeServing.switch_live"], ids=["before-finalizing", "before-the-switch"]
)
def test_a_build_abandoned_while_it_was_being_finalized_never_goes_live(moment: str) -> None:
    # Given version 1 live, and build 2 with all but its last chunk written
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    load(world, A)
    world.upload(KEY, tsv(B))
    world.settle(hold=lambda e: e.kind == "chunk" and e.fields["chunk"] == 3)
    last = world.queues.drop(lambda e: e.kind == "chunk")
    # When the last chunk finalizes it, and the build is abandoned meanwhile: after finalizing read it (before
    # its FINALIZING transition), or between that transition and the switch

    def abandon_before_switch(step: str) -> None:
        if step == moment:
            world.faults.hook = None
            assert world.builds.set_state(DATASET, 2, BuildState.ABANDONED, expect=UNFINISHED)

    world.faults.hook = abandon_before_switch
    world.service.handle(last.body, Delivery(world.clock.monotonic() + 60, 1))
    # Then the switch is refused: version 1 stays live, its pointer too, and the build never counts as live
    record = world.record()
    assert (record.live, record.previous) == (1, None)
    assert world.datasets.get_live(DATASET) is not None
    assert world.datasets.pointer(DATASET) == world.datasets.get_live(DATASET)
    assert (world.build_records()[2].state, world.build_records()[2].switched) == (BuildState.ABANDONED, None)
    assert world.telemetry.metrics.totals["LoadsSucceeded"] == 1
    assert_version(world, 1, A)


def test_a_build_number_taken_for_a_superseded_request_never_takes_over_the_newer_load() -> None:
    # Given a change noted (request 1), whose build takes a number in the first of start_build's two writes
    world = World(folder=REPLACED_WHOLE)
    now = world.clock()
    world.datasets.note_request(DATASET, now)

    def newer_change(step: str) -> None:
        # Between the two writes, a newer change is noted and its build starts (build 2)
        if step == "FakeDatasets.start_build (second write)":
            world.faults.hook = None
            request = world.datasets.note_request(DATASET, now)
            assert world.datasets.start_build(DATASET, request, now).builds == 2

    world.faults.hook = newer_change
    # Then the older attempt's second write is refused, and the newer load keeps the record
    with pytest.raises(NotLatestRequest):
        world.datasets.start_build(DATASET, 1, now)
    assert (world.record().load.version, world.record().planned) == (2, 2)


def test_a_lost_deletion_is_sent_again_by_the_sweep() -> None:
    # Given three versions loaded, the deletion of the first (scheduled, its build DELETING) lost on the way
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    for rows in (A, B, C):
        world.upload(KEY, tsv(rows))
        world.settle(hold=lambda e: e.kind == "delete")
    lost = world.queues.drop(lambda e: e.kind == "delete")
    assert (lost.fields["version"], world.build_records()[1].state) == (1, BuildState.DELETING)
    # When the sweeps run, long after it was due
    world.clean_up(rounds=3)
    # Then the first version is deleted whole, and the live and previous ones are intact
    assert world.stored_versions() == {2, 3}
    assert set(world.build_records()) == {2, 3}
    assert_version(world, 3, C)
    assert_no_surprises(world)
