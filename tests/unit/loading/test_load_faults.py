"""The load state machine under faults (``fencepost.loading``, on the in-memory fakes of ``tests.fakes``): a crash at
every step, a chunk failing or stopped at its deadline, lost chunks and the sweep, unparsable messages, emptied and
unchanged folders, and builds that race."""

from __future__ import annotations

import pytest

from fencepost.loading.messages import Lane
from fencepost.model import BuildState, LoadStatus, Phase
from tests.fakes import DATASET, REPLACED_WHOLE, World, loader_settings
from tests.support.loads import (
    KEY,
    A,
    B,
    CrashRun,
    assert_no_surprises,
    assert_version,
    chunk_of,
    crash_run,
    load,
    tsv,
)


@pytest.mark.parametrize("after", [False, True], ids=["before-its-effect", "after-its-effect"])
@pytest.mark.parametrize(
    ("chunk_items", "crashed_in"),
    [(50, {"notification", "build", "chunk", "delete"}), (500, {"notification", "build", "delete"})],
    ids=["chunks", "one-chunk"],
)
def test_a_crash_at_any_step_of_a_load_converges_on_the_complete_new_version(
    after: bool, chunk_items: int, crashed_in: set[str]
) -> None:
    # Given a dataset with a live and a previous version, and a third version loading
    # When the N-th port call of the load (any fake, any method) kills its invocation, for N = 1, 2, ... until a load
    # runs to its end without reaching step N; the killed message is delivered again
    runs: list[CrashRun] = []
    for step in range(1, 500):
        run = crash_run(step, after=after, chunk_items=chunk_items)
        if run.crash is None:
            break
        runs.append(run)
    # Then after every crash the new version goes live whole, the previous one stays intact, and nothing of an
    # abandoned build is left once clean-up has run
    assert [f"{run.crash}: {problem}" for run in runs for problem in run.problems] == []
    # And crashes hit every kind of message and the sweeps
    assert len(runs) > 30
    assert {kind for run in runs for kind in run.killed_during} == crashed_in
    assert any(not run.killed_during for run in runs)  # a crash in a sweep
    # And no load was lost: a build message that comes back after its attempt died is planned again
    assert [run.crash for run in runs if run.lost] == []


# -- failures ------------------------------------------------------------------------------------------------------


def test_a_chunk_failing_on_its_last_delivery_fails_the_load_and_keeps_the_live_version() -> None:
    # Given a live version
    world = World(loader_settings(chunk_items=50, max_receives=3), folder=REPLACED_WHOLE)
    load(world, A)
    # When every write of the next version leaves half its items unfinished, delivery after delivery
    world.writer.leave_unfinished(0.5)
    load(world, B)
    # Then the load is FAILED with the reason, and the live version is the old one, intact
    record = world.record()
    assert (record.status, record.live, record.load.version, record.load.phase) == (
        LoadStatus.FAILED,
        1,
        2,
        Phase.FAILED,
    )
    reason = record.load.problems[0].reason
    assert "not written before the invocation's deadline" in reason
    assert "after 3 deliveries" in reason
    assert_version(world, 1, A)
    assert world.report("_reports/geo/2.json")["status"] == "FAILED"
    # And the chunk is in the dead-letter list after its third delivery
    assert [(e.kind, e.receives) for e in world.queues.dead_letters] == [("chunk", 3)]
    assert world.queues.errors == []
    # And the abandoned build's items are deleted, and its record with them
    assert world.items(2) == {}
    world.clean_up()
    assert world.stored_versions() == {1}
    assert set(world.build_records()) == {1}


def test_a_chunk_stopped_at_its_deadline_is_handed_back_and_completes() -> None:
    # Given a writer whose first two puts leave items unfinished (throttled until the deadline)
    world = World(loader_settings(chunk_items=50, max_receives=3, retry_base=5.0), folder=REPLACED_WHOLE)
    world.writer.leave_unfinished(0.5, puts=2)
    # When an object is loaded
    load(world, A)
    # Then the chunks were handed back, delivered again after a backoff, and the version is live and whole
    again = [e for e in world.queues.delivered if e.receives > 1]
    assert [e.kind for e in again] == ["chunk", "chunk"]
    record = world.record()
    assert (record.status, record.live, record.load.items_written) == (LoadStatus.READY, 1, 150)
    assert_version(world, 1, A)
    assert_no_surprises(world)


def test_a_count_whose_answer_was_lost_still_finishes_the_load() -> None:
    # Given a store whose count of every chunk is applied, but answered as if it had been counted already (the
    # client retried an update whose first answer was lost)
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    count = world.builds.count_chunk

    def answer_lost(dataset: str, build: int, chunk: int, items: int) -> None:
        count(dataset, build, chunk, items)
        assert count(dataset, build, chunk, items) is None

    world.builds.count_chunk = answer_lost  # type: ignore[method-assign]
    # When an object is loaded
    load(world, A)
    # Then the last chunk's count still finalizes the build: live at once, without a sweep or a redelivery
    record = world.record()
    assert (record.status, record.live, record.load.items_written) == (LoadStatus.READY, 1, 150)
    assert [e for e in world.queues.delivered if e.receives > 1] == []
    assert_version(world, 1, A)
    assert_no_surprises(world)


def test_lost_chunks_stall_the_load_and_the_sweep_fails_it() -> None:
    # Given a live version, and the next load whose chunks are planned
    world = World(loader_settings(chunk_items=50, stall_seconds=1800), folder=REPLACED_WHOLE)
    load(world, A)
    world.upload(KEY, tsv(B))
    world.settle(hold=lambda e: e.lane == Lane.DATA)
    # When one chunk is lost and the others are written
    world.queues.drop(chunk_of(2))
    world.settle()
    record = world.record()
    assert (record.status, record.live, world.build_records()[2].state) == (LoadStatus.LOADING, 1, BuildState.WRITING)
    # Then a sweep before the stall time changes nothing; one after it fails the load
    world.clock.advance(1000)
    assert world.sweep() == 0
    world.clock.advance(1000)
    assert world.sweep() == 1
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, 1)
    assert "no progress" in record.load.problems[0].reason
    # And the live version is intact; what the abandoned build wrote is deleted
    assert_version(world, 1, A)
    assert world.stored_versions() == {1}
    assert_no_surprises(world)


# -- what is not a build ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[1, 2]",
        '{"kind": "chunk", "dataset": "geo"}',
        '{"kind": "explode", "dataset": "geo"}',
        '{"kind": "build", "dataset": "../etc", "request": 1}',
        '{"kind": "build", "dataset": "geo", "request": true}',
        '{"Records": [{"eventSource": "aws:s3", "s3": {}}]}',
    ],
)
def test_an_unparsable_message_is_dropped_not_retried(body: str) -> None:
    # Given a message that is no message of the loader's
    world = World(folder=REPLACED_WHOLE)
    world.queues.post(body, Lane.DATA)
    # When it is delivered
    world.settle()
    # Then it was delivered once, and dropped with a warning: neither retried nor sent to the dead-letter list
    assert [e.receives for e in world.queues.delivered] == [1]
    assert world.telemetry.logger.messages("warning") == ["a message that cannot be read was dropped"]
    assert world.datasets.records == {}
    assert_no_surprises(world)


def test_an_emptied_folder_retires_the_dataset_and_deletes_live_and_previous() -> None:
    # Given a live and a previous version
    world = World(loader_settings(chunk_items=50, delete_grace=960.0), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    assert (world.record().live, world.record().previous) == (2, 1)
    # When the folder's only object is removed
    world.remove(KEY)
    world.queues.run(until=lambda: not any(e.kind != "delete" for e in world.queues.pending))
    # Then nothing is served, no build up to this one may go live, and the load says why
    record = world.record()
    assert (record.live, record.previous, record.retired, record.floor) == (None, None, True, 3)
    assert (record.status, record.load.phase) == (LoadStatus.READY, Phase.RETIRED)
    assert record.to_api()["version"] is None
    # And both versions are scheduled for deletion once no warm lookup can read them
    deletions = {int(str(e.fields["version"])): e for e in world.queues.pending if e.kind == "delete"}
    assert set(deletions) == {1, 2}
    assert {e.fields["not_before"] for e in deletions.values()} == {world.clock() + 960.0}
    assert world.items(1) != {}
    assert world.items(2) != {}
    # And once the grace has passed, they are gone
    world.settle()
    assert world.stored_versions() == set()
    assert world.build_records() == {}
    assert_no_surprises(world)


def test_unchanged_objects_skip_the_build() -> None:
    # Given a live version
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    load(world, A)
    sent = len(world.queues.sent)
    # When the same bytes are uploaded again (the same ETag)
    load(world, A)
    # Then a build number is taken but nothing is read or written: the load is READY, "unchanged"
    record = world.record()
    assert (record.status, record.live, record.builds) == (LoadStatus.READY, 1, 2)
    assert (record.load.version, record.load.phase) == (2, Phase.UNCHANGED)
    assert [e.kind for e in world.queues.sent[sent:]] == ["build"]
    assert world.stored_versions() == {1}
    assert set(world.build_records()) == {1}
    assert_version(world, 1, A)
    assert_no_surprises(world)


# -- the fakes keep the real adapters' rules -------------------------------------------------------------------------


def test_records_read_from_the_fakes_are_copies() -> None:
    # The rules themselves are checked on the fakes and on DynamoDB Local alike: tests/integration/test_contracts.py
    world = World(folder=REPLACED_WHOLE)
    world.datasets.note_request("geo", world.clock())
    copy = world.datasets.get("geo")
    assert copy is not None
    copy.live, copy.load.phase = 99, Phase.DONE
    assert (world.record().live, world.record().load.phase) == (None, Phase.QUEUED)


# -- defects found and fixed -------------------------------------------------------------------------------------------


def test_an_older_build_never_goes_live_over_a_newer_load_that_found_the_folder_unchanged() -> None:
    # Given version 1 live (object A), and build 2 (object B) planned, its chunks waiting
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    load(world, A)
    world.upload(KEY, tsv(B))
    world.settle(hold=lambda e: e.lane == Lane.DATA)
    # When the object is put back as it was (the same ETag as version 1), and build 3 finds it unchanged
    world.upload(KEY, tsv(A))
    world.settle(hold=lambda e: e.lane == Lane.DATA)
    assert (world.record().load.version, world.record().load.phase) == (3, Phase.UNCHANGED)
    # And then build 2's chunks are written
    world.settle()
    world.clean_up()
    # Then the live version is still what the folder holds: object A
    record = world.record()
    assert record.status == LoadStatus.READY
    assert record.objects == world.bucket.data(DATASET)
    assert_version(world, record.live, A)
