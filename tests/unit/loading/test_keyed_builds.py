"""A keyed folder's loads on the in-memory fakes (``tests.fakes``): each version announced live once, a refusal
announced with its gate and limit while the live version serves on, a refused build accepted once by a person, a
dated subfolder never built, and a failed read announced as a failed build."""

from __future__ import annotations

from fencepost.core.events.kinds import BUILD_FAILED, BUILD_REFUSED, VERSION_LIVE
from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.storage.objects import keys_key
from fencepost.model import BuildState, LoadStatus
from tests.fakes.world import DATASET, World

KEY = f"{DATASET}/_fetched/asn.txt"  # a fed folder: the unattended gates


def names(count: int, tag: str = "") -> str:
    return "".join(f"{asn} NET-{asn}{tag}, US\n" for asn in range(1, count + 1))


def kinds(world: World) -> list[tuple[str, object]]:
    return [(event.kind.name, event.detail.get("version", event.detail.get("build"))) for event in world.events.sent]


def test_versions_are_announced_live_and_a_truncated_feed_is_refused_with_its_gate() -> None:
    world = World(folder={"key": "asn"})
    world.upload(KEY, names(200))
    world.settle()
    world.upload(KEY, names(200, "-b"))
    world.settle()
    assert [kind for kind, _ in kinds(world)] == [VERSION_LIVE.name, VERSION_LIVE.name]
    assert world.record().live == 2
    assert world.build_records()[2].state == BuildState.LIVE

    world.upload(KEY, names(120, "-b"))  # 80 of 200 keys gone: 40%, past the unattended 10%
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, 2)
    refused = world.events.sent[-1]
    assert refused.kind is BUILD_REFUSED
    assert (refused.detail["gate"], refused.detail["limit"], refused.detail["live"]) == ("max_removed_percent", 10.0, 2)
    assert refused.detail["diff"]["removed"] == 80
    assert keys_key(DATASET, 3) not in world.bucket.objects

    world.accept()  # a person accepts it, once
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 4)  # (the accepted request took a build number)
    assert record.load.diff is not None
    assert record.load.diff.note == "accepted once past the folder's gates (the admin module's accept)"
    assert len(KeyedTable.decode(world.bucket.objects[keys_key(DATASET, 4)]).rows) == 120


def test_a_dated_subfolder_of_a_keyed_folder_is_never_built() -> None:
    world = World(folder={"key": "asn"})
    world.upload(f"{DATASET}/asn.txt", names(10))
    world.upload(f"{DATASET}/2026-11-01/asn.txt", names(5))
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 1)
    assert set(world.build_records()) == {1}
    assert len(KeyedTable.decode(world.bucket.objects[keys_key(DATASET, 1)]).rows) == 10


def test_a_keyed_folder_that_cannot_be_read_is_a_failed_build_announced() -> None:
    world = World(folder={"key": "id"})
    world.upload(f"{DATASET}/table.csv", "name,label\na,b\n")
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, None)
    assert record.load.problems[0].object == f"{DATASET}/table.csv"
    assert [kind for kind, _ in kinds(world)] == [BUILD_FAILED.name]


def test_a_table_that_would_hold_more_memory_than_the_build_may_read_fails_before_it_is_held() -> None:
    # Held whole, a table takes far more than its text: a cell is an object of its own (about 20 times a CSV of
    # two-character cells), so a wide table within the bytes a build reads could exhaust the loader's memory
    world = World(folder={"key": "id", "limits": {"max_build_bytes": 200_000}})
    header = "id," + ",".join(f"c{column}" for column in range(99)) + "\n"
    body = header + "".join(f"{row}," + ",".join(["xy"] * 99) + "\n" for row in range(400))
    assert len(body) < 200_000
    world.upload(f"{DATASET}/table.csv", body)
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, None)
    reason = record.load.problems[0].reason
    assert reason.startswith(
        f"the table would take more than 200,000 bytes once held (limits.max_build_bytes of {DATASET}/"
    )
    assert record.load.problems[0].object == f"{DATASET}/table.csv"


def test_a_live_table_that_cannot_be_read_fails_the_build_until_a_person_accepts_it() -> None:
    world = World(folder={"key": "asn"})
    world.upload(KEY, names(200))
    world.settle()
    del world.bucket.objects[keys_key(DATASET, 1)]  # the live version's table lost: nothing to compare with
    world.upload(KEY, names(20))  # a truncated feed: 90% of the keys gone
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, 1)
    assert "cannot compare this build" in record.load.problems[0].reason
    world.accept()
    world.settle()
    assert (world.record().status, world.record().live) == (LoadStatus.READY, 3)
