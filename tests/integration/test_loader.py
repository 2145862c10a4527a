"""The loader through its real handler path: files dropped in the bucket, S3 notifications through SQS, chunks
fanned out and written to DynamoDB Local, answers read back through the lookup handler."""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import pytest

from fencepost.core.space.addresses import format_address, parse_boundary
from tests.reference import Reference, range_span
from tests.support import V4_FILE, V6_FILE, family_ranges, read_tsv
from tests.support.lookups import GEO, batch_answers, batch_lookup, dataset_record, items_of_version, tsv_bytes
from tests.support.stacks import Stack

# -- real data ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "window", "columns"),
    [
        (V4_FILE, (0, 30_000), 1),  # nested and partial overlaps, /8 crossings
        (V6_FILE, (70_000, 100_000), 3),  # nested and partial overlaps, /20 crossings
    ],
)
def test_a_real_file_loads_and_answers_by_the_overlap_rule(
    stack: Stack, path: Path, window: tuple[int, int], columns: int
) -> None:
    # Given a slice of a shared real file, dropped gzipped into a folder
    rows = read_tsv(path, window[1])[window[0] :]
    stack.put("real/ranges.tsv.gz", gzip.compress(tsv_bytes(rows)))
    # When the loader has done its work
    stack.drain()
    # Then the dataset is READY with every row, and one item per flattened piece
    record = stack.dataset("real")
    assert (record["status"], record["version"], record["ranges"]) == ("READY", 1, len(rows))
    family = 4 if path == V4_FILE else 6
    ranges = family_ranges(rows)[family]
    pieces = ranges.pieces()
    assert record["load"]["items_written"] == len(pieces) == items_of_version(stack, "real", 1)
    # And 10,000 random addresses answer as the overlap rule applied to the original rows says
    reference = Reference(ranges.starts, ranges.ends)
    rng = random.Random(11)
    low, high = min(ranges.starts), max(ranges.ends)
    addresses = [rng.randint(low, high) for _ in range(8000)]
    addresses += [a for p in rng.sample(pieces, 500) for a in (p.start, p.end, p.end + 1, max(0, p.start - 1))]
    texts = [format_address(family, a) for a in addresses]
    results = batch_lookup(stack, "real", texts)
    names = [f"col{3 + i}" for i in range(columns)]
    wrong = []
    for address, text, result in zip(addresses, texts, results, strict=True):
        row = reference.answer(address)
        if row is None:
            ok = result.get("error", {}).get("code") == "NOT_FOUND"
        else:
            expected_range = range_span(family, ranges.starts[row], ranges.ends[row])
            ok = (
                result.get("data") == dict(zip(names, ranges.values[row], strict=True))
                and result.get("range") == expected_range
            )
            match = result.get("match", {})
            ok = ok and parse_boundary(match["start"])[1] <= address <= parse_boundary(match["end"])[1]
        if not ok:
            wrong.append((text, result))
    assert len(addresses) >= 10_000
    assert wrong == []


# -- datasets and versions ---------------------------------------------------------------------------------------


def test_a_burst_of_ten_files_makes_one_build(stack: Stack) -> None:
    for index in range(10):
        stack.put(f"burst/part{index}.csv", f"start,end,part\n10.{index}.0.0,10.{index}.255.255,p{index}\n")
    stack.drain()
    record = dataset_record(stack, "burst")
    assert record.builds == 1
    assert (record.live, record.status, record.ranges) == (1, "READY", 10)
    answers = batch_answers(stack, "burst", [f"10.{index}.1.1" for index in range(10)])
    assert [a[0] for a in answers] == [{"part": f"p{index}"} for index in range(10)]


def test_two_files_dropped_at_once_converge_on_a_version_built_from_both(stack: Stack) -> None:
    stack.put("geo/v4.csv", GEO)
    stack.put("geo/v6.csv.gz", gzip.compress(b"start,end,country\n2001:db8::,2001:db8::ffff,ZZ\n"))
    stack.drain()
    answers = batch_answers(stack, "geo", ["1.0.32.1", "2001:db8::1"])
    assert [a[0] for a in answers] == [{"country": "CN"}, {"country": "ZZ"}]
    assert [o["key"] for o in stack.dataset("geo")["objects"]] == ["geo/v4.csv", "geo/v6.csv.gz"]


def test_root_objects_and_the_default_folder_are_the_default_dataset(stack: Stack) -> None:
    stack.put("ranges.csv", GEO)
    stack.put("default/more.csv", "start,end,country\n9.9.9.0,9.9.9.255,CH\n")
    stack.drain()
    status, body = stack.get("/lookup", ip="9.9.9.9")
    assert (status, body["dataset"], body["data"]) == (200, "default", {"country": "CH"})
    assert stack.dataset("default")["ranges"] == 4


@pytest.mark.parametrize("times", [2, 3])
def test_each_delivery_repeated_loads_once(stack: Stack, times: int) -> None:
    # Given a worker that hands every message to the loader several times (at-least-once delivery)
    def repeating(handler: Any) -> Any:
        def repeated(ev: dict[str, Any], context: Any) -> Any:
            for _ in range(times - 1):
                handler(ev, context)
            return handler(ev, context)

        return repeated

    stack.deliver_with(repeating)
    rows = read_tsv(V4_FILE, 3000)
    stack.put("dup/ranges.tsv", tsv_bytes(rows))
    stack.drain()
    # Then one build, every chunk counted once, every item there
    record = dataset_record(stack, "dup")
    assert (record.builds, record.live, record.status) == (1, 1, "READY")
    pieces = family_ranges(rows)[4].pieces()
    assert record.load.items_written == len(pieces) == items_of_version(stack, "dup", 1)
    # And the same notification again changes nothing: the objects are those of the live version
    stack.put("dup/ranges.tsv", tsv_bytes(rows))  # same bytes, same ETag
    stack.drain()
    record = dataset_record(stack, "dup")
    assert (record.live, record.status, record.load.phase) == (1, "READY", "unchanged")
