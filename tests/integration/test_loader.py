"""The loader through its real handler path: files dropped in the bucket, S3 notifications through SQS, chunks
fanned out and written to DynamoDB Local, answers read back through the lookup handler."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

from fencepost.aws.dynamo import Tables
from fencepost.aws.dynamo.client import Table
from fencepost.core.addresses import format_address, parse_boundary
from fencepost.core.keys import DATASETS_PK, dataset_id
from tests.integration.conftest import Stack
from tests.reference import Reference, range_span
from tests.support import V4_FILE, V6_FILE, LambdaContext, event, family_ranges, read_tsv

GEO = "start,end,country\n1.0.0.0,1.0.255.255,AU\n1.0.32.0,1.0.63.255,CN\n8.8.8.0,8.8.8.255,US\n"


def _tsv(rows: list[list[str]]) -> bytes:
    return "".join("\t".join(row) + "\n" for row in rows).encode()


def _record(stack: Stack, name: str) -> Any:
    return Tables.connect(stack.ddb, stack.table).datasets.get(name, consistent=True)


def _phase(stack: Stack, name: str) -> str | None:
    status, body = stack.get(f"/datasets/{name}")
    return body["load"]["phase"] if status == 200 else None


def _items_of_version(stack: Stack, dataset: str, version: int) -> int:
    pages = stack.ddb.get_paginator("scan").paginate(
        TableName=stack.table,
        FilterExpression="begins_with(PK, :p)",
        ExpressionAttributeValues={":p": {"S": f"{dataset}#{version}#"}},
        Select="COUNT",
    )
    return sum(page["Count"] for page in pages)


def _batch_lookup(stack: Stack, dataset: str, addresses: list[str]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for offset in range(0, len(addresses), 100):
        ev = event("lookup-post")
        ev["body"] = json.dumps({"ips": addresses[offset : offset + 100], "dataset": dataset})
        response = stack.lookup.handler(ev, LambdaContext())
        assert response["statusCode"] == 200, response["body"]
        results += json.loads(response["body"])["results"]
    return results


def _answers(stack: Stack, dataset: str, addresses: list[str]) -> list[Any]:
    return [
        (r.get("data"), r.get("range"), r.get("error", {}).get("code"))
        for r in _batch_lookup(stack, dataset, addresses)
    ]


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
    rows = read_tsv(path)[window[0] : window[1]]
    stack.put("real/ranges.tsv.gz", gzip.compress(_tsv(rows)))
    # When the loader has done its work
    stack.drain()
    # Then the dataset is READY with every row, and one item per flattened piece
    record = stack.dataset("real")
    assert (record["status"], record["version"], record["ranges"]) == ("READY", 1, len(rows))
    family = 4 if path == V4_FILE else 6
    ranges = family_ranges(rows)[family]
    pieces = ranges.pieces()
    assert record["load"]["items_written"] == len(pieces) == _items_of_version(stack, "real", 1)
    # And 10,000 random addresses answer as the overlap rule applied to the original rows says
    reference = Reference(ranges.starts, ranges.ends)
    rng = random.Random(11)
    low, high = min(ranges.starts), max(ranges.ends)
    addresses = [rng.randint(low, high) for _ in range(8000)]
    addresses += [a for p in rng.sample(pieces, 500) for a in (p.start, p.end, p.end + 1, max(0, p.start - 1))]
    texts = [format_address(family, a) for a in addresses]
    results = _batch_lookup(stack, "real", texts)
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
    record = _record(stack, "burst")
    assert record.builds == 1
    assert (record.live, record.status, record.ranges) == (1, "READY", 10)
    answers = _answers(stack, "burst", [f"10.{index}.1.1" for index in range(10)])
    assert [a[0] for a in answers] == [{"part": f"p{index}"} for index in range(10)]


def test_two_files_dropped_at_once_converge_on_a_version_built_from_both(stack: Stack) -> None:
    stack.put("geo/v4.csv", GEO)
    stack.put("geo/v6.csv.gz", gzip.compress(b"start,end,country\n2001:db8::,2001:db8::ffff,ZZ\n"))
    stack.drain()
    answers = _answers(stack, "geo", ["1.0.32.1", "2001:db8::1"])
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
    stack.put("dup/ranges.tsv", _tsv(rows))
    stack.drain()
    # Then one build, every chunk counted once, every item there
    record = _record(stack, "dup")
    assert (record.builds, record.live, record.status) == (1, 1, "READY")
    pieces = family_ranges(rows)[4].pieces()
    assert record.load.items_written == len(pieces) == _items_of_version(stack, "dup", 1)
    # And the same notification again changes nothing: the objects are those of the live version
    stack.put("dup/ranges.tsv", _tsv(rows))  # same bytes, same ETag
    stack.drain()
    record = _record(stack, "dup")
    assert (record.live, record.status, record.load.phase) == (1, "READY", "unchanged")


def test_replacing_a_file_switches_versions_and_deletes_the_one_before_the_previous(stack: Stack) -> None:
    stack.put("geo/data.csv", GEO)
    stack.drain()
    stack.put("geo/data.csv", GEO.replace("CN", "C2"))
    stack.drain()
    assert _answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "C2"}
    record = _record(stack, "geo")
    assert (record.live, record.previous) == (2, 1)
    stack.put("geo/data.csv", GEO.replace("CN", "C3"))
    stack.drain()
    record = _record(stack, "geo")
    assert (record.live, record.previous) == (3, 2)
    assert _answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "C3"}
    assert _items_of_version(stack, "geo", 1) == 0  # deleted once no lookup could read it
    assert _items_of_version(stack, "geo", 2) == 4  # kept for rollback


def test_rollback_switches_to_the_previous_version_and_back(stack: Stack) -> None:
    from fencepost.handlers.admin import main as admin

    stack.put("geo/data.csv", GEO)
    stack.drain()
    first = stack.dataset("geo")
    stack.put("geo/data.csv", GEO.replace("CN", "C2"))
    stack.drain()
    assert admin(["rollback", "geo"]) == 0
    assert _answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "CN"}
    # The record describes the version it serves
    rolled = stack.dataset("geo")
    assert (rolled["version"], rolled["objects"], rolled["ranges"]) == (1, first["objects"], first["ranges"])
    assert admin(["rollback", "geo"]) == 0
    assert _answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "C2"}


def test_a_rollback_holds_until_the_folder_changes(stack: Stack) -> None:
    from fencepost.handlers.admin import main as admin

    stack.put("geo/data.csv", GEO)
    stack.drain()
    stack.put("geo/data.csv", GEO.replace("CN", "C2"))
    stack.drain()
    assert admin(["rollback", "geo"]) == 0
    # When the same object is put again, and the loader is asked to rebuild every dataset (as `make run` does
    # at start)
    stack.put("geo/data.csv", GEO.replace("CN", "C2"))
    stack.drain()
    stack.loader.service.request_build("geo")
    stack.drain()
    # Then version 1 still answers
    record = _record(stack, "geo")
    assert (record.live, record.previous, record.load.phase) == (1, 2, "unchanged")
    assert _answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "CN"}
    # And the next change of the folder is built and goes live
    stack.put("geo/data.csv", GEO.replace("CN", "C3"))
    stack.drain()
    assert _answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "C3"}


def test_a_settings_object_alone_starts_a_build(stack: Stack) -> None:
    stack.put("geo/data.tsv", "1.0.0.0\t1.0.0.255\t13335\tUS\n")
    stack.drain()
    assert _answers(stack, "geo", ["1.0.0.1"])[0][0] == {"col3": "13335", "col4": "US"}
    # When only the folder's settings change (put, changed, deleted), each change builds a version
    stack.put("geo/_settings.json", json.dumps({"columns": ["asn", "country"]}))
    stack.drain()
    assert _answers(stack, "geo", ["1.0.0.1"])[0][0] == {"asn": "13335", "country": "US"}
    stack.put("geo/_settings.json", json.dumps({"columns": ["as", "cc"]}))
    stack.drain()
    assert _answers(stack, "geo", ["1.0.0.1"])[0][0] == {"as": "13335", "cc": "US"}
    stack.delete("geo/_settings.json")
    stack.drain()
    assert _answers(stack, "geo", ["1.0.0.1"])[0][0] == {"col3": "13335", "col4": "US"}
    assert (_record(stack, "geo").live, _record(stack, "geo").status) == (4, "READY")


def test_removing_the_last_object_retires_the_dataset(stack: Stack) -> None:
    stack.put("gone/data.csv", GEO)
    stack.drain()
    stack.delete("gone/data.csv")
    stack.drain()
    status, body = stack.get("/lookup", ip="1.0.32.1", dataset="gone")
    assert (status, body["error"]["code"]) == (404, "UNKNOWN_DATASET")
    assert stack.get("/datasets/gone")[0] == 404
    assert _items_of_version(stack, "gone", 1) == 0


def test_removing_one_of_two_objects_rebuilds_from_the_rest(stack: Stack) -> None:
    stack.put("geo/a.csv", GEO)
    stack.put("geo/b.csv", "start,end,country\n9.9.9.0,9.9.9.255,CH\n")
    stack.drain()
    stack.delete("geo/b.csv")
    stack.drain()
    assert [a[2] for a in _answers(stack, "geo", ["9.9.9.9", "8.8.8.8"])] == ["NOT_FOUND", None]


def test_settings_name_columns_and_allow_skipping_rows(stack: Stack) -> None:
    stack.put("geo/_settings.json", json.dumps({"columns": ["asn", "country"], "max_invalid_rows": 1}))
    stack.put("geo/data.tsv", "1.0.0.0\t1.0.0.255\t13335\tUS\nbad\t1.0.1.255\t1\tX\n")
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["ranges"]) == ("READY", 1)
    assert record["load"]["problems"] == [
        {
            "object": "geo/data.tsv",
            "line": 2,
            "reason": "start 'bad' is not an IPv4 or IPv6 address (IPv4 octets are decimal without leading zeros)",
        }
    ]
    assert _answers(stack, "geo", ["1.0.0.1"])[0][0] == {"asn": "13335", "country": "US"}


def test_objects_with_different_columns_fail_the_load(stack: Stack) -> None:
    stack.put("geo/a.csv", GEO)
    stack.put("geo/b.csv", "start,end,asn\n9.9.9.0,9.9.9.255,19281\n")
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", None)
    assert "same columns" in record["load"]["problems"][0]["reason"]


def test_a_bad_file_fails_and_the_live_version_keeps_answering(stack: Stack) -> None:
    stack.put("geo/data.csv", GEO)
    stack.drain()
    probes = ["1.0.32.1", "1.0.64.1", "8.8.8.8", "9.9.9.9"]
    before = _answers(stack, "geo", probes)
    stack.put("geo/more.csv", b"start,end,country\n2.0.0.0,2.0.0.255,Z\xfcrich\n")
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    problem = record["load"]["problems"][0]
    assert (problem["object"], problem["line"]) == ("geo/more.csv", 2)
    assert "not UTF-8" in problem["reason"]
    report = stack.report(record["load"]["report"])
    assert report["status"] == "FAILED"
    assert report["problems"][0]["reason"] == problem["reason"]
    assert _answers(stack, "geo", probes) == before


def test_too_many_invalid_rows_fail_with_every_problem_in_the_report(stack: Stack) -> None:
    stack.put("geo/data.csv", GEO)
    stack.drain()
    bad = "start,end,country\n" + "".join(f"1.0.{i}.9,1.0.{i}.0,X\n" for i in range(150))
    stack.put("geo/data.csv", bad)
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    assert len(record["load"]["problems"]) == 100
    assert record["load"]["problems"][0]["reason"] == "150 invalid rows; the folder's settings allow 0"
    report = stack.report(record["load"]["report"])
    assert report["problems_total"] == 151
    assert [p["line"] for p in report["problems"][1:]] == list(range(2, 152))


def test_non_data_keys_never_start_a_load_and_bad_folder_names_are_reported(stack: Stack) -> None:
    stack.put("_notes/readme.csv", GEO)
    stack.put("geo/.hidden.csv", GEO)
    stack.put("bad name!/data.csv", GEO)
    stack.drain()
    assert stack.get("/datasets")[1] == {"datasets": []}
    rejected = stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_reports/_rejected/").get("Contents", [])
    reasons = [stack.report(entry["Key"]) for entry in rejected]
    assert [(r["object"], "cannot be a dataset" in r["reason"]) for r in reasons] == [("bad name!/data.csv", True)]


def test_progress_is_visible_while_a_load_runs(stack: Stack) -> None:
    stack.put("geo/data.tsv", _tsv(read_tsv(V4_FILE, 5000)))
    # Deliver messages one by one until the build is planned and its chunks are queued
    stack.drain_until(lambda: _phase(stack, "geo") == "writing")
    record = stack.dataset("geo")
    assert (record["status"], record["version"], record["load"]["version"]) == ("LOADING", None, 1)
    assert record["load"]["rows_read"] == 5000
    stack.drain()
    assert stack.dataset("geo")["status"] == "READY"


def test_sweep_fails_a_load_that_stopped_making_progress(stack: Stack) -> None:
    stack.put("geo/data.tsv", _tsv(read_tsv(V4_FILE, 2000)))  # several chunks: they go through the data queue
    stack.drain_until(lambda: _phase(stack, "geo") == "writing")
    # The chunks are lost (the data queue is purged) and time passes
    stack.sqs.purge_queue(QueueUrl=stack.queues.data.url)
    Table(stack.ddb, stack.table).update(
        {"PK": {"S": DATASETS_PK}, "SK": {"N": str(dataset_id("geo"))}}, "SET #heartbeat = :old", {":old": 1.0}
    )
    assert stack.loader.handler({"source": "aws.events", "detail-type": "Scheduled Event"}, LambdaContext()) == {
        "stalled_loads_failed": 1
    }
    record = stack.dataset("geo")
    assert record["status"] == "FAILED"
    assert "no progress" in record["load"]["problems"][0]["reason"]
