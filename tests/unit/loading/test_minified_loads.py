"""A minified JSON document (AWS's ip-ranges.json is one line of about 1.5 MB) loads as a document, within
``MAX_DOCUMENT_BYTES`` rather than ``MAX_LINE_BYTES``; one over the document limit fails its load saying so, and a
file of one huge line that is no JSON document still fails at the line limit."""

from __future__ import annotations

import dataclasses
import time

from fencepost.core.folders.limits import Limits
from fencepost.core.versions.data_dates import DataDate
from fencepost.model import LoadStatus
from tests.fakes import DATASET, World
from tests.fakes.world import loader_settings
from tests.support.documents import minified

SMALL = Limits(max_line_bytes=1024, max_document_bytes=64 << 10)


def _world(limits: Limits | None = None) -> World:
    return World(dataclasses.replace(loader_settings(), limits=limits or Limits()))


def test_a_minified_aws_document_of_today_s_size_loads_as_a_document() -> None:
    world = _world()
    body = minified(15_000)  # 15,000 prefixes on one line, as large as AWS's today
    assert len(body) > 1_500_000  # 1.5 MB, over the default MAX_LINE_BYTES of 1 MiB
    world.upload(f"{DATASET}/ip-ranges.json", body)
    started = time.perf_counter()
    world.settle()
    took = time.perf_counter() - started
    record = world.record()
    assert (record.status, record.live, record.ranges) == (LoadStatus.READY, 1, 15_000)
    assert record.data_date == DataDate("2026-11-28T03:13:04Z", "document", f"{DATASET}/ip-ranges.json")
    assert took < 30  # about 0.4 s on one core


def test_a_minified_document_over_the_line_limit_but_within_the_document_limit_loads() -> None:
    world = _world(SMALL)
    world.upload(f"{DATASET}/ip-ranges.json", minified(300))  # about 30 KB
    world.settle()
    record = world.record()
    assert (record.status, record.ranges) == (LoadStatus.READY, 300)


def test_a_minified_document_over_the_document_limit_fails_its_load_saying_so() -> None:
    world = _world(SMALL)
    world.upload(f"{DATASET}/ip-ranges.json", minified(1000) + b"\n")  # about 100 KB on one line
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, None)
    (problem,) = record.load.problems
    assert (problem.object, problem.line) == (f"{DATASET}/ip-ranges.json", 1)
    assert problem.reason == "a JSON document larger than 65,536 bytes (MAX_DOCUMENT_BYTES) is not read"


def test_a_huge_line_of_any_other_file_fails_at_the_line_limit() -> None:
    world = _world(SMALL)
    world.upload(f"{DATASET}/list.txt", b"1.0.0.0/24\n2.0.0.0/24 " + b"x" * 70_000 + b"\n")
    world.settle()
    (problem,) = world.record().load.problems
    assert problem.line == 2
    assert problem.reason.startswith("the line is longer than 1,024 bytes (MAX_LINE_BYTES)")


def test_a_folder_that_lowers_the_line_limit_still_loads_a_minified_document() -> None:
    world = _world()
    world.upload(f"{DATASET}/_settings.json", b'{"limits": {"max_line_bytes": 1024}}')
    world.upload(f"{DATASET}/ip-ranges.json", minified(300))
    world.settle()
    assert world.record().ranges == 300
    world.upload(f"{DATASET}/_settings.json", b'{"limits": {"max_line_bytes": 1024, "max_document_bytes": 4096}}')
    world.upload(f"{DATASET}/ip-ranges.json", minified(301))
    world.settle()
    (problem,) = world.record().load.problems
    assert "a JSON document larger than 4,096 bytes" in problem.reason
