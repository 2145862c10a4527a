"""Loads that cannot succeed fail at once, with a report that says why, and the live version keeps answering: an
error the loader does not expect (in planning or in a chunk), and a version whose directory would be too large.
On the in-memory fakes (``tests.fakes``); ``tests/integration`` checks the same on DynamoDB Local and moto."""

from __future__ import annotations

import dataclasses
import json

import pytest

from fencepost.core.folders.limits import Limits
from fencepost.model import LoadStatus
from tests.fakes import DATASET, REPLACED_WHOLE, World, loader_settings
from tests.faults import Killed, expected_items
from tests.support import V4_FILE, read_tsv

ROWS = read_tsv(V4_FILE, 300)
A, B = ROWS[:150], ROWS[150:]
KEY = "geo/a.tsv"


def tsv(rows: list[list[str]]) -> str:
    return "".join("\t".join(row) + "\n" for row in rows)


def steps_of_second_load(chunk_items: int) -> list[str]:
    world = World(loader_settings(chunk_items=chunk_items), folder=REPLACED_WHOLE)
    world.upload(KEY, tsv(A))
    world.settle()
    world.faults.arm(None)
    world.upload(KEY, tsv(B))
    world.settle()
    return world.faults.trace


class Unexpected(ValueError):
    """An error no step of the loader expects (a bug)."""


@pytest.mark.parametrize(
    ("step", "chunk_items"),
    [
        ("FakeBucket.list_data", 50),  # planning, before anything is written
        ("FakeVersions.put", 50),  # planning, after the build record is written
        ("FakeWriter.put", 500),  # writing the one chunk, from the planning invocation
        ("FakeBuilds.count_chunk", 50),  # a chunk message, after its items are written
    ],
)
def test_an_unexpected_error_fails_the_build_with_its_reason_and_is_not_retried(step: str, chunk_items: int) -> None:
    # Given a live version, and a second load that meets an unexpected error at one step
    number = steps_of_second_load(chunk_items).index(step) + 1
    world = World(loader_settings(chunk_items=chunk_items), folder=REPLACED_WHOLE)
    world.upload(KEY, tsv(A))
    world.settle()
    world.faults.arm(number, error=Unexpected)
    # When the load runs, and clean-up after it
    world.upload(KEY, tsv(B))
    world.settle()
    world.clean_up()
    # Then the load FAILED at once, with the error's type and message as the reason (and no stack)
    assert world.faults.killed is not None
    record = world.record()
    assert (record.status, record.live, record.load.version) == (LoadStatus.FAILED, 1, 2)
    reason = record.load.problems[0].reason
    assert reason.startswith("the build stopped on an unexpected error: Unexpected: failed at step"), reason
    report = json.dumps(world.report("_reports/geo/2.json"))
    assert "Unexpected: failed at step" in report
    assert "Traceback" not in report
    # And it was not delivered again and again: no message came back, none is parked
    assert all(envelope.receives == 1 for envelope in world.queues.delivered)
    assert world.queues.dead_letters == []
    assert world.queues.pending == []
    # And the error was logged (with its stack), the live version is whole, and nothing of build 2 is left
    assert [type(error) for error in world.queues.errors] == [Unexpected]
    assert world.telemetry.logger.messages("error") == ["build failed on an unexpected error"]
    assert world.telemetry.metrics.totals["LoadsFailed"] == 1
    assert world.items(1) == expected_items(A, DATASET, 1)
    assert world.stored_versions() == {1}


def test_a_killed_invocation_is_still_a_crash_that_the_next_delivery_recovers_from() -> None:
    # Given a load whose planning invocation dies (nothing of the loader runs after a kill)
    number = steps_of_second_load(50).index("FakeVersions.put") + 1
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    world.upload(KEY, tsv(A))
    world.settle()
    world.faults.arm(number, error=Killed)
    world.upload(KEY, tsv(B))
    world.settle()
    world.clean_up()
    # Then no error was logged, and the build message came back and loaded the version
    assert world.queues.crashes == ["build"]
    assert world.queues.errors == []
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 3)
    assert world.items(3) == expected_items(B, DATASET, 3)


SPREAD = [  # IPv6 ranges starting in three /20 partitions
    ["2001:db8::", "2001:db8::ff", "a"],
    ["2001:1db8::", "2001:1db8::ff", "b"],
    ["2001:2db8::", "2001:2db8::ff", "c"],
]


@pytest.mark.parametrize("where", ["function", "folder"])
def test_a_version_whose_directory_is_over_the_limit_fails_before_anything_is_written(where: str) -> None:
    # Given a live version, and a limit of two partitions (the function's, or lowered by the folder's settings)
    settings = loader_settings(chunk_items=50)
    if where == "function":
        settings = dataclasses.replace(settings, limits=Limits(max_directory_partitions=2))
    world = World(settings, folder=REPLACED_WHOLE)
    world.upload(KEY, tsv(A))
    world.settle()
    if where == "folder":
        world.bucket.put_object("geo/_settings.json", json.dumps({"limits": {"max_directory_partitions": 2}}))
    # When a file whose ranges start in three partitions is added
    world.upload("geo/b.tsv", tsv(SPREAD))
    world.settle()
    # Then the load FAILED, saying so, and nothing of the new version was written
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, 1)
    reason = record.load.problems[0].reason
    assert "the version's ranges start in 4 partitions" in reason  # (A's one /8 and three /20s)
    assert "a version may span at most 2" in reason
    source = "MAX_DIRECTORY_PARTITIONS" if where == "function" else "limits.max_directory_partitions of geo/_settings"
    assert source in reason
    report = world.report("_reports/geo/2.json")
    assert report["status"] == "FAILED"
    assert [o["key"] for o in report["objects"]] == ["geo/a.tsv", "geo/b.tsv"]
    assert world.stored_versions() == {1}
    assert world.build_records().keys() == {1}
