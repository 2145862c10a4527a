"""Rollback on the in-memory fakes, with a controllable clock: the record describes the version it names, old
versions are deleted only once no warm lookup can read them, and a rollback holds until the folder changes."""

from __future__ import annotations

import hashlib

from fencepost.model import LivePointer, LoadStatus, ObjectRef, Phase, VersionHeader
from tests.fakes import DATASET, REPLACED_WHOLE, World, loader_settings
from tests.support.loads import KEY, A, B, C, assert_no_surprises, assert_version, load, tsv

DAY = 86_400.0
GRACE = 960.0  # the fakes' delete_grace: the lookups' cache TTL plus 15 minutes


def ref(rows: list[list[str]]) -> ObjectRef:
    body = tsv(rows).encode()
    return ObjectRef(KEY, hashlib.md5(body).hexdigest(), len(body))


def header(world: World, version: int) -> VersionHeader:
    found = world.store.get(f"#v#{DATASET}#{version}", 0)
    assert isinstance(found, VersionHeader)
    return found


def two_versions() -> World:
    """Version 1 (rows A) then version 2 (rows B) of one object, both loaded and settled."""
    world = World(loader_settings(chunk_items=50, delete_grace=GRACE), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    assert (world.record().live, world.record().previous) == (2, 1)
    return world


def test_after_a_rollback_the_record_describes_the_version_it_serves() -> None:
    # Given version 2 live for two days
    world = two_versions()
    world.clock.advance(2 * DAY)
    # When it is rolled back
    rolled_at = world.clock()
    after = world.datasets.rollback(DATASET, rolled_at)
    # Then the record names version 1 and describes it: its objects, rows, load time and since when it is live
    record = world.record()
    assert record == after
    assert (record.live, record.previous) == (1, 2)
    assert (record.objects, record.ranges, record.loaded_at) == ([ref(A)], len(A), header(world, 1).created_at)
    assert record.live_since == rolled_at
    # And the live pointer lookups read says the same, changed with it
    assert world.datasets.pointer(DATASET) == LivePointer(DATASET, 1, rolled_at)
    assert world.datasets.get_live(DATASET) == LivePointer(DATASET, 1, rolled_at)
    # And rolling forward describes version 2 again
    world.clock.advance(60)
    forward = world.datasets.rollback(DATASET, world.clock())
    assert (forward.live, forward.objects, forward.ranges, forward.loaded_at) == (
        2,
        [ref(B)],
        len(B),
        header(world, 2).created_at,
    )
    assert (forward.live_since, forward.held) == (world.clock(), None)


def test_a_version_rolled_away_from_is_deleted_only_a_grace_after_it_stopped_being_live() -> None:
    # Given version 2 live for two days, then rolled back to version 1
    world = two_versions()
    world.clock.advance(2 * DAY)
    rolled_at = world.clock()
    world.datasets.rollback(DATASET, rolled_at)
    # When 30 s later version 3 goes live (its deletions held back for a moment)
    world.clock.advance(30)
    world.upload(KEY, tsv(C))
    world.settle(hold=lambda e: e.kind == "delete")
    record = world.record()
    assert (record.live, record.previous) == (3, 1)
    # Then version 2, live until the rollback 30 s ago, is scheduled a grace after the rollback, not at once
    (deletion,) = [e for e in world.queues.pending if e.kind == "delete"]
    assert (deletion.fields["version"], deletion.fields["not_before"]) == (2, rolled_at + GRACE)
    # And it is still whole while warm lookups may still read it, and gone only after
    world.settle(hold=lambda e: e.due >= rolled_at + GRACE)
    assert world.clock() > rolled_at + 2 * 60  # (the deletion waits in hops: the first has passed)
    assert_version(world, 2, B)
    world.settle()
    assert world.items(2) == {}
    assert world.clock() >= rolled_at + GRACE
    assert world.stored_versions() == {1, 3}
    assert_version(world, 3, C)
    assert_version(world, 1, A)
    assert_no_surprises(world)


def test_a_rollback_holds_until_the_folder_changes() -> None:
    # Given version 2 (the folder's object, B) rolled back to version 1
    world = two_versions()
    world.datasets.rollback(DATASET, world.clock())
    sent = len(world.queues.sent)
    # When the same object is uploaded again (a notification for unchanged objects), and when `make run`
    # reconciles every dataset at start
    load(world, B)
    world.service.request_build(DATASET)
    world.settle()
    # Then nothing is built: version 1 stays live, each load ends READY "unchanged"
    record = world.record()
    assert (record.live, record.previous, record.objects) == (1, 2, [ref(A)])
    assert (record.status, record.load.phase) == (LoadStatus.READY, Phase.UNCHANGED)
    assert [e.kind for e in world.queues.sent[sent:]] == ["build", "build"]
    assert world.stored_versions() == {1, 2}
    # When the folder changes
    load(world, C)
    # Then its objects are built and go live
    record = world.record()
    assert (record.status, record.previous, record.objects, record.held) == (LoadStatus.READY, 1, [ref(C)], None)
    assert_version(world, record.live, C)
    assert_no_surprises(world)


def test_a_folder_changed_since_a_rollback_is_built_even_when_it_comes_back() -> None:
    # Given version 2 (object B) rolled back to version 1 (object A)
    world = two_versions()
    world.datasets.rollback(DATASET, world.clock())
    # When the folder changes to A (what is live: nothing to build), then back to B
    load(world, A)
    assert (world.record().live, world.record().load.phase, world.record().held) == (1, Phase.UNCHANGED, None)
    load(world, B)
    # Then B is built again: the rollback held only until the folder changed
    record = world.record()
    assert record.live is not None
    assert record.live > 2
    assert (record.status, record.objects) == (LoadStatus.READY, [ref(B)])
    assert_version(world, record.live, B)
    assert_no_surprises(world)
