"""The load state machine (``fencepost.loading``) on in-memory fakes of its ports: notifications, builds, chunks,
going live, failures, clean-up and the sweep, under redelivery, races, lost messages and a crash at every step.

The fakes (``tests.fakes``) keep the rules of the real adapters; the integration tests check the same machine on
DynamoDB Local and moto, slowly. Here time is simulated: delays, grace periods and stalls pass when the harness
says, and a whole load takes milliseconds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from fencepost.errors import StoreUnavailable
from fencepost.loading.messages import Lane
from fencepost.model import BuildState, DiffSummary, LoadState, LoadStatus, Phase
from tests.fakes import DATASET, REPLACED_WHOLE, Envelope, World, loader_settings
from tests.faults import expected_items
from tests.support import V4_FILE, read_tsv

ROWS = read_tsv(V4_FILE, 480)
A, B, C = ROWS[:150], ROWS[150:300], ROWS[300:450]  # three versions of one object: 3 chunks of 50 items each
SMALL = ROWS[450:480]  # one chunk
KEY = "geo/a.tsv"


def tsv(rows: list[list[str]]) -> str:
    return "".join("\t".join(row) + "\n" for row in rows)


def load(world: World, rows: list[list[str]], key: str = KEY) -> None:
    """Drop ``rows`` into the bucket as ``key`` and deliver until the queues are empty."""
    world.upload(key, tsv(rows))
    world.settle()


def assert_version(world: World, version: int | None, rows: list[list[str]]) -> None:
    """Every item the rows make, with every attribute, is stored for ``version``, and nothing else."""
    assert version is not None
    assert world.items(version) == expected_items(rows, DATASET, version)


def assert_no_surprises(world: World) -> None:
    assert world.queues.errors == []  # nothing raised but HandBack and Killed
    assert world.queues.dead_letters == []
    assert world.queues.pending == []


def chunk_of(build: int) -> Callable[[Envelope], bool]:
    return lambda envelope: envelope.kind == "chunk" and envelope.fields["build"] == build


# -- the happy path ------------------------------------------------------------------------------------------------


def test_a_notification_builds_writes_chunks_and_goes_live() -> None:
    # Given an object of 150 rows, 50 items a chunk
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    # When S3's notification arrives and every message is delivered
    world.upload(KEY, tsv(A))
    world.settle()
    # Then the notification made one build, the build made three chunks, the last chunk made version 1 live
    assert [e.kind for e in world.queues.delivered] == ["notification", "build", "chunk", "chunk", "chunk"]
    assert [e.lane for e in world.queues.sent] == [Lane.CONTROL, Lane.DATA, Lane.DATA, Lane.DATA]
    record = world.record()
    assert (record.status, record.live, record.previous, record.ranges) == (LoadStatus.READY, 1, None, 150)
    assert (record.load.version, record.load.phase, record.load.rows_read) == (1, Phase.DONE, 150)
    assert record.load.items_written == 150
    assert record.objects == [world.bucket.ref(KEY)]
    assert_version(world, 1, A)
    # And one build record, LIVE, with every chunk counted once
    (build,) = world.build_records().values()
    assert (build.build, build.state, build.chunks, build.done, build.written) == (
        1,
        BuildState.LIVE,
        3,
        {1, 2, 3},
        150,
    )
    # And a report says so
    report = world.report("_reports/geo/1.json")
    assert (report["status"], report["version"], report["items_written"]) == ("READY", 1, 150)
    assert report["objects"] == [{"key": KEY, "etag": world.bucket.ref(KEY).etag, "size": len(tsv(A))}]
    assert world.telemetry.metrics.totals["LoadsSucceeded"] == 1
    assert_no_surprises(world)


def test_a_one_chunk_build_goes_live_from_the_planning_invocation() -> None:
    # Given a small object: one chunk
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    world.upload("geo/small.tsv", tsv(SMALL))
    # When the notification and then the build message are delivered
    assert world.queues.deliver_next(Lane.CONTROL) is not None
    assert world.record().status == LoadStatus.LOADING
    build = world.queues.deliver_next(Lane.CONTROL)
    # Then the version is live from that one invocation, and nothing was ever sent to the data queue
    assert build is not None
    assert build.kind == "build"
    record = world.record()
    assert (record.status, record.live, record.load.items_written) == (LoadStatus.READY, 1, 30)
    assert_version(world, 1, SMALL)
    assert [e.lane for e in world.queues.sent] == [Lane.CONTROL]
    assert world.build_records()[1].state == BuildState.LIVE
    assert_no_surprises(world)


# -- at-least-once delivery ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Duplicates:
    """How the queues deliver each message more than once."""

    name: str
    repeat: int = 1  # handler calls per delivery, one after the other
    echoes: int = 0  # copies delivered again later
    echo_delay: float = 1.0
    twin_at: frozenset[str] = frozenset()  # a copy runs whole, concurrently, when the delivery reaches such a step

    @property
    def concurrent(self) -> bool:
        return bool(self.twin_at)


DUPLICATES = [
    Duplicates("twice-at-once", repeat=2),
    Duplicates("three-times-at-once", repeat=3),
    Duplicates("again-a-second-later", echoes=1, echo_delay=1.0),
    Duplicates("twice-again-after-the-load", echoes=2, echo_delay=600.0),
    Duplicates("at-once-and-after-the-load", repeat=2, echoes=1, echo_delay=600.0),
    Duplicates(
        "concurrently-before-counting",
        twin_at=frozenset({"FakeDatasets.note_request", "FakeDatasets.start_build", "FakeBuilds.count_chunk"})
        | {"FakeWriter.delete"},
    ),
    Duplicates(
        "concurrently-before-switching",
        twin_at=frozenset({"FakeQueues.send", "FakeBucket.list_data", "FakeServing.switch_live", "FakeVersions.get"}),
    ),
]


@pytest.mark.parametrize("duplicates", DUPLICATES, ids=[d.name for d in DUPLICATES])
@pytest.mark.parametrize("chunk_items", [50, 500], ids=["chunks", "one-chunk"])
def test_every_message_delivered_again_loads_each_version_once(duplicates: Duplicates, chunk_items: int) -> None:
    # Given queues that deliver every message (notification, build, chunk, delete) more than once
    world = World(loader_settings(chunk_items=chunk_items), folder=REPLACED_WHOLE)
    queues = world.queues
    queues.repeat, queues.echoes, queues.echo_delay = duplicates.repeat, duplicates.echoes, duplicates.echo_delay
    queues.twin_at = set(duplicates.twin_at)
    # When three versions are loaded one after the other, and the old ones are cleaned up
    for rows in (A, B, C):
        load(world, rows)
    world.clean_up()
    # Then every kind of message was handled more than once
    kinds = {e.kind for e in queues.delivered}
    assert kinds == {"notification", "build", "delete"} | ({"chunk"} if chunk_items < len(A) else set())
    if not duplicates.concurrent:
        handled = Counter(e.body for e in queues.delivered for _ in range(duplicates.repeat))
        assert min(handled.values()) >= 2
    # And the last version is live and whole, the one before it kept for rollback, the first deleted
    record = world.record()
    assert record.status == LoadStatus.READY
    assert record.objects == [world.bucket.ref(KEY)]
    assert_version(world, record.live, C)
    assert_version(world, record.previous, B)
    assert world.stored_versions() == {record.live, record.previous}
    # And every chunk was counted once, and each version went live once
    assert record.live is not None
    live = world.build_records()[record.live]
    assert (live.state, live.written, live.done) == (BuildState.LIVE, 150, set(range(1, live.chunks + 1)))
    metrics = world.telemetry.metrics.totals
    assert "LoadsFailed" not in metrics
    assert metrics["LoadsSucceeded"] == 3  # even when two copies finalize one build at once
    if not duplicates.concurrent:  # (concurrent copies may both write a chunk, and count its items)
        assert metrics["ItemsWritten"] == len(A) + len(B) + len(C)
    assert_no_surprises(world)


# -- two builds of one dataset at once -----------------------------------------------------------------------------


@dataclass
class Race:
    """In which order the chunks of build 1 (object a) and build 2 (objects a and b) are written."""

    name: str
    order: Callable[[Envelope], tuple[int, int]] = field(repr=False)
    older_live_first: bool


RACES = [
    Race("newer-first", lambda e: (-int(str(e.fields["build"])), e.number), older_live_first=False),
    Race("older-first", lambda e: (int(str(e.fields["build"])), e.number), older_live_first=True),
    Race("interleaved", lambda e: (int(str(e.fields["chunk"])), -int(str(e.fields["build"]))), older_live_first=True),
]


@pytest.mark.parametrize("race", RACES, ids=[race.name for race in RACES])
def test_two_builds_of_one_dataset_converge_on_the_newest(race: Race) -> None:
    # Given build 1 planned, its chunks waiting on the data queue
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    world.upload("geo/a.tsv", tsv(A))
    world.settle(hold=lambda e: e.lane == Lane.DATA)
    first = DiffSummary(note="the first version of the dataset: nothing to compare with")
    assert world.record().load == LoadState(1, Phase.WRITING, 150, 0, [], "_reports/geo/1.json", first)
    # When a second object arrives and build 2 is planned before build 1's chunks are written
    world.upload("geo/b.tsv", tsv(B))
    world.settle(hold=lambda e: e.lane == Lane.DATA)
    assert world.record().load.version == 2
    # And the chunks of both builds are written in the race's order
    while chunks := [e for e in world.queues.waiting() if e.kind == "chunk"]:
        world.queues.deliver(min(chunks, key=race.order))
    world.settle()
    world.clean_up()
    # Then the newest build, of both objects, is live and complete
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 2)
    assert [o.key for o in record.objects] == ["geo/a.tsv", "geo/b.tsv"]
    assert_version(world, 2, A + B)
    # And build 1 is either the complete rollback target or deleted whole (never live after build 2)
    if race.older_live_first:
        assert record.previous == 1
        assert_version(world, 1, A)
    else:
        assert record.previous is None
        assert world.items(1) == {}
        assert world.stored_versions() == {2}
    assert_no_surprises(world)


# -- a crash at every step -----------------------------------------------------------------------------------------


@dataclass
class CrashRun:
    crash: str | None  # the step that was killed; None: the load had fewer steps
    lost: bool = False  # the load needed a new change in the folder to finish
    killed_during: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def crash_run(step: int, *, after: bool, chunk_items: int) -> CrashRun:
    """Load A, then B; kill the ``step``-th port call of loading C; deliver, sweep, clean up; check everything."""
    world = World(loader_settings(chunk_items=chunk_items), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    world.faults.arm(step, after=after)
    load(world, C)  # the killed message is delivered again after its visibility timeout
    world.clean_up()  # stalled loads are failed, versions no one serves are deleted
    run = CrashRun(world.faults.killed, killed_during=list(world.queues.crashes))
    problems = run.problems
    record = world.record()
    if record.status != LoadStatus.READY:
        # A lost load (the test below asserts there is none) must at least be failed by the sweep, the old version
        # answering (or its own, if live), and load on the next change.
        run.lost = True
        reason = record.load.problems[0].reason if record.load.problems else ""
        if record.status != LoadStatus.FAILED or "no progress" not in reason:
            problems.append(f"a lost load must be failed by the sweep: {record.status} {reason!r}")
        if run.killed_during != ["build"]:
            problems.append(f"a load was lost though the crash was in {run.killed_during or 'a sweep'}")
        if record.live not in (2, record.load.version):
            problems.append(f"version {record.live} is live after a lost load")
        load(world, C)  # a new change in the folder
        world.clean_up()
        record = world.record()
    if record.status != LoadStatus.READY or record.previous != 2 or record.live is None:
        problems.append(f"not converged: {record.status}, live {record.live}, previous {record.previous}")
        return run
    if world.items(record.live) != expected_items(C, DATASET, record.live):
        problems.append(f"live version {record.live} is not complete")
    if world.items(2) != expected_items(B, DATASET, 2):
        problems.append("the previous version is not intact")
    if world.range_versions() != {record.live, 2}:
        problems.append(f"range items of versions {world.range_versions() - {record.live, 2}} were left behind")
    if not set(world.build_records()) <= {record.live, 2}:
        problems.append(f"build records {sorted(world.build_records())} were left behind")
    if world.queues.errors or world.queues.dead_letters or world.queues.pending:
        problems.append(f"errors {world.queues.errors}, dead letters {world.queues.dead_letters}")
    return run


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


def steps_of_third_load(chunk_items: int, max_receives: int = 3) -> list[str]:
    world = World(loader_settings(chunk_items=chunk_items, max_receives=max_receives), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    world.faults.arm(None)
    load(world, C)
    return world.faults.trace


@pytest.mark.parametrize("path", ["killed-then-swept", "passing-fault-on-last-delivery"])
def test_a_load_whose_version_went_live_is_never_reported_failed(path: str) -> None:
    # Given a live and a previous version, and a third load that fails right after its switch
    chunk_items, max_receives = (500, 3) if path == "killed-then-swept" else (50, 1)
    trace = steps_of_third_load(chunk_items, max_receives)
    switch = trace.index("FakeServing.switch_live") + 1
    assert trace[switch] == "FakeDatasets.end_load"  # the step after the switch (trace is 0-based, steps 1-based)
    world = World(loader_settings(chunk_items=chunk_items, max_receives=max_receives), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    if path == "killed-then-swept":
        world.faults.arm(switch, after=True)  # the invocation dies once the version is live
    else:
        world.faults.arm(switch + 1, error=StoreUnavailable)  # the next call (end_load) meets a passing fault
    # When the load runs, and the sweep runs after the stall time
    load(world, C)
    world.clean_up()
    # Then a load whose own version is live is not reported FAILED
    record = world.record()
    assert world.faults.killed is not None
    assert record.live == 3
    assert_version(world, 3, C)
    assert record.status == LoadStatus.READY


@pytest.mark.parametrize("crashed", ["FakeBuilds.put", "FakeVersions.put"])
def test_a_crash_between_writing_a_version_and_its_build_record_leaves_nothing_behind(crashed: str) -> None:
    # Given a crash just before the build record, or the version it records, of the third load is written
    step = steps_of_third_load(50).index(crashed) + 1
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    world.faults.arm(step)
    load(world, C)
    # When the build message comes back (the attempt died), and clean-up runs
    world.clean_up()
    # Then only the live and the previous version are stored
    record = world.record()
    assert (record.status, record.live, record.previous) == (LoadStatus.READY, 4, 2)
    assert world.range_versions() == {2, 4}
    assert world.stored_versions() == {2, 4}
