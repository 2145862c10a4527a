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

from fencepost.core.events.kinds import VERSION_LIVE
from fencepost.loading.messages import Lane
from fencepost.model import BuildState, DiffSummary, LoadState, LoadStatus, Phase
from tests.fakes import REPLACED_WHOLE, Envelope, World, loader_settings
from tests.support.loads import KEY, SMALL, A, B, C, assert_no_surprises, assert_version, load, tsv

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
    # And each version live was announced once, as it went live, naming the one it replaced
    announced = [(e.detail["version"], e.detail["previous"]) for e in world.events.sent if e.kind is VERSION_LIVE]
    assert len(announced) == 3
    assert [previous for _, previous in announced] == [None, announced[0][0], announced[1][0]]
    assert announced[-1][0] == record.live
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
    assert world.record().load == LoadState(1, Phase.WRITING, 150, 0, [], "_reports/geo/1.json", first, items=150)
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
