"""Each build compares itself with the live version (the pieces file beside the live version's report, read as a
stream) and records the difference in its report and the dataset's ``load.diff``; ``max_change_percent`` stops a
build that changes too much, and the live version keeps answering."""

from __future__ import annotations

import gzip
import json

from fencepost.core.diffs import parse_piece_line
from fencepost.core.folders import changes_key, pieces_key
from fencepost.model import DiffSummary, LoadStatus
from tests.fakes import DATASET, World, loader_settings

V1 = "start,end,country\n1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.1.255,CN\n2001:db8::,2001:db8::ffff,ZZ\n"
# 1.0.1.0/24 now answers JP; 2.0.0.0/24 is new; the IPv6 range is gone
V2 = "start,end,country\n1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.1.255,JP\n2.0.0.0,2.0.0.255,FR\n"


def _loaded(world: World, body: str) -> None:
    world.upload(f"{DATASET}/ranges.csv", body)
    world.settle()


def test_a_first_version_has_no_baseline_and_keeps_its_pieces() -> None:
    world = World(loader_settings())
    _loaded(world, V1)
    record = world.record()
    assert record.status == LoadStatus.READY
    assert record.load.diff == DiffSummary(note="the first version of the dataset: nothing to compare with")
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


def test_a_live_version_built_before_pieces_were_kept_is_no_baseline_and_no_gate_applies() -> None:
    world = World(loader_settings())
    _loaded(world, V1)
    del world.bucket.objects[pieces_key(DATASET, 1)]  # as if version 1 had been built before
    world.upload(f"{DATASET}/_settings.json", json.dumps({"max_change_percent": 0}))
    world.upload(f"{DATASET}/ranges.csv", V2)
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 2)
    assert record.load.diff == DiffSummary(
        note="version 1 was built before versions kept their pieces: nothing to compare with"
    )
    assert changes_key(DATASET, 2) not in world.bucket.objects


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
