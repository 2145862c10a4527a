"""Versions through the real loader on DynamoDB Local and the local S3 and SQS: replacing a file, rollback and its hold,
settings objects, removing objects, and failures that keep the live version answering."""

from __future__ import annotations

import json

from fencepost.aws.dynamo.client import Table
from fencepost.core.storage.keys import DATASETS_PK, dataset_id
from tests.support import V4_FILE, LambdaContext, read_tsv
from tests.support.lookups import GEO, batch_answers, dataset_record, items_of_version, load_phase, tsv_bytes
from tests.support.stacks import Stack


def test_replacing_a_file_switches_versions_and_deletes_the_one_before_the_previous(stack: Stack) -> None:
    stack.put("geo/data.csv", GEO)
    stack.drain()
    stack.put("geo/data.csv", GEO.replace("CN", "C2"))
    stack.drain()
    assert batch_answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "C2"}
    record = dataset_record(stack, "geo")
    assert (record.live, record.previous) == (2, 1)
    stack.put("geo/data.csv", GEO.replace("CN", "C3"))
    stack.drain()
    record = dataset_record(stack, "geo")
    assert (record.live, record.previous) == (3, 2)
    assert batch_answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "C3"}
    assert items_of_version(stack, "geo", 1) == 0  # deleted once no lookup could read it
    assert items_of_version(stack, "geo", 2) == 4  # kept for rollback


def test_rollback_switches_to_the_previous_version_and_back(stack: Stack) -> None:
    from fencepost.handlers.admin import main as admin

    stack.put("geo/data.csv", GEO)
    stack.drain()
    first = stack.dataset("geo")
    stack.put("geo/data.csv", GEO.replace("CN", "C2"))
    stack.drain()
    assert admin(["rollback", "geo"]) == 0
    assert batch_answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "CN"}
    # The record describes the version it serves
    rolled = stack.dataset("geo")
    assert (rolled["version"], rolled["objects"], rolled["ranges"]) == (1, first["objects"], first["ranges"])
    assert admin(["rollback", "geo"]) == 0
    assert batch_answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "C2"}


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
    record = dataset_record(stack, "geo")
    assert (record.live, record.previous, record.load.phase) == (1, 2, "unchanged")
    assert batch_answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "CN"}
    # And the next change of the folder is built and goes live
    stack.put("geo/data.csv", GEO.replace("CN", "C3"))
    stack.drain()
    assert batch_answers(stack, "geo", ["1.0.32.1"])[0][0] == {"country": "C3"}


def test_a_settings_object_alone_starts_a_build(stack: Stack) -> None:
    stack.put("geo/data.tsv", "1.0.0.0\t1.0.0.255\t13335\tUS\n")
    stack.drain()
    assert batch_answers(stack, "geo", ["1.0.0.1"])[0][0] == {"col3": "13335", "col4": "US"}
    # When only the folder's settings change (put, changed, deleted), each change builds a version
    stack.put("geo/_settings.json", json.dumps({"columns": ["asn", "country"]}))
    stack.drain()
    assert batch_answers(stack, "geo", ["1.0.0.1"])[0][0] == {"asn": "13335", "country": "US"}
    stack.put("geo/_settings.json", json.dumps({"columns": ["as", "cc"]}))
    stack.drain()
    assert batch_answers(stack, "geo", ["1.0.0.1"])[0][0] == {"as": "13335", "cc": "US"}
    stack.delete("geo/_settings.json")
    stack.drain()
    assert batch_answers(stack, "geo", ["1.0.0.1"])[0][0] == {"col3": "13335", "col4": "US"}
    assert (dataset_record(stack, "geo").live, dataset_record(stack, "geo").status) == (4, "READY")


def test_removing_the_last_object_retires_the_dataset(stack: Stack) -> None:
    stack.put("gone/data.csv", GEO)
    stack.drain()
    stack.delete("gone/data.csv")
    stack.drain()
    status, body = stack.get("/lookup", ip="1.0.32.1", dataset="gone")
    assert (status, body["error"]["code"]) == (404, "UNKNOWN_DATASET")
    assert stack.get("/datasets/gone")[0] == 404
    assert items_of_version(stack, "gone", 1) == 0


def test_removing_one_of_two_objects_rebuilds_from_the_rest(stack: Stack) -> None:
    stack.put("geo/a.csv", GEO)
    stack.put("geo/b.csv", "start,end,country\n9.9.9.0,9.9.9.255,CH\n")
    stack.drain()
    stack.delete("geo/b.csv")
    stack.drain()
    assert [a[2] for a in batch_answers(stack, "geo", ["9.9.9.9", "8.8.8.8"])] == ["NOT_FOUND", None]


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
    assert batch_answers(stack, "geo", ["1.0.0.1"])[0][0] == {"asn": "13335", "country": "US"}


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
    before = batch_answers(stack, "geo", probes)
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
    assert batch_answers(stack, "geo", probes) == before


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
    stack.put("geo/data.tsv", tsv_bytes(read_tsv(V4_FILE, 5000)))
    # Deliver messages one by one until the build is planned and its chunks are queued
    stack.drain_until(lambda: load_phase(stack, "geo") == "writing")
    record = stack.dataset("geo")
    assert (record["status"], record["version"], record["load"]["version"]) == ("LOADING", None, 1)
    assert record["load"]["rows_read"] == 5000
    stack.drain()
    assert stack.dataset("geo")["status"] == "READY"


def test_sweep_fails_a_load_that_stopped_making_progress(stack: Stack) -> None:
    stack.put("geo/data.tsv", tsv_bytes(read_tsv(V4_FILE, 2000)))  # several chunks: they go through the data queue
    stack.drain_until(lambda: load_phase(stack, "geo") == "writing")
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
