"""Each build compares itself with the live version (the pieces file beside the live version's report, read as a
stream) and records the difference in its report and the dataset's ``load.diff``; ``max_change_percent`` stops a
build that changes too much, and the live version keeps answering."""

from __future__ import annotations

import gzip
import json

from fencepost.core.storage.keys import version_pk
from fencepost.core.storage.objects import changes_key, pieces_key
from fencepost.core.storage.piece_files import parse_piece_line
from fencepost.model import DiffSummary, LoadStatus
from tests.fakes import DATASET, World, loader_settings
from tests.feeds import drop_list
from tests.support.diffs import V1, V2


def _loaded(world: World, body: str) -> None:
    world.upload(f"{DATASET}/ranges.csv", body)
    world.settle()


def test_a_first_version_has_no_baseline_and_keeps_its_pieces() -> None:
    world = World(loader_settings())
    _loaded(world, V1)
    record = world.record()
    assert record.status == LoadStatus.READY
    # Its IPv6 range is documentation space: reported, and let through (an attended folder allows reserved space)
    documentation = "2001:db8::/32 (Documentation, RFC 3849)"
    assert record.load.diff == DiffSummary(
        note="the first version of the dataset: nothing to compare with", reserved=documentation
    )
    pieces = [
        parse_piece_line(line)
        for line in gzip.decompress(world.bucket.objects[pieces_key(DATASET, 1)]).decode().splitlines()
    ]
    assert [(piece.family, piece.start, piece.end) for piece in pieces] == [
        (4, 0x01000000, 0x010000FF),
        (4, 0x01000100, 0x010001FF),
        (6, 0x20010DB8 << 96, (0x20010DB8 << 96) + 0xFFFF),
    ]


def test_the_next_version_records_what_changed_in_its_report_and_its_record() -> None:
    world = World(loader_settings())
    _loaded(world, V1)
    _loaded(world, V2)
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 2)
    diff = record.load.diff
    assert diff is not None
    assert (diff.baseline, diff.added, diff.removed, diff.changed, diff.unchanged) == (1, 1, 1, 1, 1)
    assert diff.changed_percent_ipv4 == 512 / 2**32 * 100  # CN -> JP, and NOT_FOUND -> FR
    assert diff.changed_percent_ipv6 == 65536 / 2**128 * 100
    report = world.report(record.load.report or "")
    assert report["diff"]["baseline"] == 1
    # The stretches whose answer changed, with what they answer now, kept beside the report
    kept = gzip.decompress(world.bucket.objects[changes_key(DATASET, 2)]).decode()
    assert [json.loads(line) for line in kept.splitlines()] == [
        {"start": "1.0.1.0", "end": "1.0.1.255", "change": "changed", "data": {"country": "JP"}},
        {"start": "2.0.0.0", "end": "2.0.0.255", "change": "added", "data": {"country": "FR"}},
        {"start": "2001:db8::", "end": "2001:db8::ffff", "change": "removed", "data": None},
    ]
    assert record.to_api()["load"]["diff"]["changed"] == 1
    json.dumps(record.to_api())  # served as JSON


def test_max_change_percent_fails_a_build_that_changes_too_much_and_a_higher_limit_lets_it_build() -> None:
    world = World(loader_settings())
    _loaded(world, V1)
    world.upload(f"{DATASET}/_settings.json", json.dumps({"max_change_percent": 0.00001}))
    world.upload(f"{DATASET}/ranges.csv", V2)
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, 1)
    problem = record.load.problems[0]
    assert problem.object == f"{DATASET}/_settings.json"
    assert "max_change_percent allows 1e-05%" in problem.reason
    assert "since version 1" in problem.reason
    assert record.load.diff is not None  # the figures that failed it
    assert (record.load.diff.baseline, record.load.diff.changed) == (1, 1)
    # A higher limit is a settings change: the same objects build
    world.upload(f"{DATASET}/_settings.json", json.dumps({"max_change_percent": 0.001}))
    world.settle()
    record = world.record()
    assert record.status == LoadStatus.READY
    assert record.load.diff is not None
    assert record.load.diff.baseline == 1


def test_a_live_version_whose_pieces_file_is_missing_is_compared_with_its_items_and_the_file_is_kept() -> None:
    world = World(loader_settings())
    _loaded(world, V1)
    kept = world.bucket.objects.pop(pieces_key(DATASET, 1))  # expired, deleted, or never written
    world.upload(f"{DATASET}/_settings.json", json.dumps({"max_change_percent": 0}))
    world.upload(f"{DATASET}/ranges.csv", V2)
    world.settle()
    # The gate decided on a real comparison: refused, and the note says where the baseline came from
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, 1)
    assert record.load.diff is not None
    assert (record.load.diff.gate, record.load.diff.baseline, record.load.diff.changed) == ("max_change_percent", 1, 1)
    assert record.load.diff.note == "the pieces of version 1 were missing: made again from its items"
    # The file is made again as its build wrote it, and kept: the next build reads it
    assert gzip.decompress(world.bucket.objects[pieces_key(DATASET, 1)]) == gzip.decompress(kept)
    warnings = [message for level, message, _ in world.telemetry.logger.lines if level == "warning"]
    assert "the live version's pieces were missing: made again from its items" in warnings


def test_a_build_whose_baseline_cannot_be_read_at_all_fails_and_can_be_accepted_once() -> None:
    world = World(loader_settings())
    _loaded(world, V1)
    del world.bucket.objects[pieces_key(DATASET, 1)]
    world.store.partitions.pop(version_pk(DATASET, 1))  # and its header is gone from the table too
    _loaded(world, V2)
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, 1)
    assert record.load.diff is not None
    assert record.load.diff.gate == "baseline"
    reason = record.load.problems[0].reason
    assert reason.startswith(
        f"the pieces of version 1, the live version, are missing ({pieces_key(DATASET, 1)}) and its items are not in "
        "the table: no gate can compare this build with it: the live version keeps answering"
    )


def test_a_deleted_version_takes_its_pieces_and_changes_files_but_the_latest_loads_changes_stay() -> None:
    world = World(loader_settings())
    v3 = V2.replace("FR", "DE")
    for body in (V1, V2, v3):
        _loaded(world, body)
    world.clean_up()
    assert world.range_versions() == {2, 3}  # version 1 deleted: 3 live, 2 the rollback target
    kept = {key for key in world.bucket.objects if key.endswith((".pieces.gz", ".changes.gz"))}
    assert kept == {pieces_key(DATASET, 2), pieces_key(DATASET, 3), changes_key(DATASET, 2), changes_key(DATASET, 3)}
    # A build the gate fails is the latest load: its changes stay served after it is deleted
    world.upload(f"{DATASET}/_settings.json", json.dumps({"max_change_percent": 0.000001}))
    _loaded(world, V1)
    world.clean_up()
    assert world.record().load.version == 4
    assert world.record().status == LoadStatus.FAILED
    assert changes_key(DATASET, 4) in world.bucket.objects
    assert pieces_key(DATASET, 4) not in world.bucket.objects  # never live: no build's baseline


def _drop_list() -> str:
    return "".join(f"{row[0]},{row[1]},drop\n" for row in drop_list())


def test_a_truncated_blocklist_is_refused_by_default_and_the_live_version_keeps_answering() -> None:
    # Given a DROP-style list of 1,000 IPv4 /20s and 200 IPv6 /32s, live, with the old gate at 10%
    world = World(loader_settings(chunk_items=500))
    world.upload(f"{DATASET}/_settings.json", json.dumps({"max_change_percent": 10, "columns": ["list"]}))
    _loaded(world, _drop_list())
    served = world.items(1)
    assert len(served) == 1200
    # When the same object is replaced by its first 4 lines
    _loaded(world, "".join(_drop_list().splitlines(keepends=True)[:4]))
    # Then the build fails on the removed share, naming the gate and both figures, and version 1 keeps answering
    record = world.record()
    assert (record.status, record.live, record.load.version) == (LoadStatus.FAILED, 1, 2)
    reason = record.load.problems[0].reason
    assert reason.startswith("99.6% of the IPv4 pieces version 1 serves (996 of 1,000) are gone or answer otherwise")
    assert "max_removed_percent allows 25%" in reason
    assert world.items(1) == served
    assert world.range_versions() == {1}
    # And load.diff holds every figure, the gate that refused it included
    diff = record.load.diff
    assert diff is not None
    assert (diff.gate, diff.live_pieces_ipv4, diff.live_pieces_ipv6) == ("max_removed_percent", 1000, 200)
    assert (diff.removed_percent_pieces_ipv4, diff.removed_percent_pieces_ipv6) == (99.6, 100.0)
    assert diff.removed_percent_addresses_ipv4 == 99.6
    assert diff.changed_percent_ipv4 < 0.1
    assert record.to_api()["load"]["diff"]["gate"] == "max_removed_percent"
    # And accepting the change is a settings change: the same objects build
    world.upload(f"{DATASET}/_settings.json", json.dumps({"max_removed_percent": None, "columns": ["list"]}))
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 3)
    assert record.load.diff is not None
    assert record.load.diff.gate is None
    assert len(world.items(3)) == 4


def test_min_ranges_refuses_even_a_first_version() -> None:
    world = World(loader_settings())
    world.upload(f"{DATASET}/_settings.json", json.dumps({"min_ranges": 4}))
    _loaded(world, V1)
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, None)
    assert record.load.problems[0].reason.startswith("the objects hold 3 ranges; min_ranges asks for at least 4")
    assert record.load.diff is not None
    assert record.load.diff.gate == "min_ranges"
