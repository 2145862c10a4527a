"""Keyed datasets through the real loader on DynamoDB Local and the local S3 and SQS: an AS-names folder goes live
with its table stored whole, a second file makes a second version kept in the history, a truncated feed is refused
by the gates while the live version serves on, clean-up deletes an old version's table, an emptied folder retires;
and a range folder's keyed_joins recorded with its version, or refused naming the settings object."""

from __future__ import annotations

import gzip
import json

from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.loading.messages import ExportVersion, PushSinks
from tests.support.keyed import (
    asn_txt,
    autnums_html,
    expected_rows,
    has_table,
    stored_table,
    version_info,
)
from tests.support.lookups import GEO, dataset_record
from tests.support.stacks import Stack

JOIN = {"dataset": "as-names", "on": "asn", "columns": ["name", "country"], "prefix": "as_"}
ROUTED = "start,end,asn\n1.0.0.0,1.0.255.255,13335\n8.8.8.0,8.8.8.255,15169\n"


def test_an_as_names_folder_goes_live_with_its_table_and_a_second_file_makes_version_two(stack: Stack) -> None:
    stack.put("as-names/_settings.json", json.dumps({"key": "asn", "retain_days": 1}))
    stack.put("as-names/asn.txt", asn_txt(range(1, 301)))
    stack.drain()
    record = stack.dataset("as-names")
    assert (record["status"], record["version"], record["ranges"]) == ("READY", 1, 300), record["load"]
    table = stored_table(stack, "as-names", 1)
    assert (table.key, table.form, table.columns) == ("asn", "asn", ("name", "country"))
    assert table.rows == expected_rows(range(1, 301))
    info = version_info(stack, "as-names", 1)
    assert info is not None
    assert (info.keyed, info.columns, info.keyed_joins) == ("asn", ("asn", "name", "country"), ())
    assert all(not directory.partitions for directory in info.directories.values())

    stack.put("as-names/autnums.html", autnums_html(range(301, 401)))
    stack.drain()
    record = stack.dataset("as-names")
    assert (record["status"], record["version"], record["ranges"]) == ("READY", 2, 400), record["load"]
    assert stored_table(stack, "as-names", 2).rows == expected_rows(range(1, 401))
    assert record["load"]["diff"]["added"] == 100
    status, listed = stack.get("/datasets/as-names/versions")
    assert status == 200, listed
    assert [entry["version"] for entry in listed["versions"]] == [2, 1]  # both kept (retain_days)
    # A gzip'd object is read as the lines it holds
    stack.put("as-names/more.txt.gz", gzip.compress(asn_txt(range(401, 411))))
    stack.drain()
    assert stored_table(stack, "as-names", 3).rows == expected_rows(range(1, 411))
    stack.delete("as-names/more.txt.gz")
    stack.drain()
    # The same sources again build nothing
    stack.put("as-names/autnums.html", autnums_html(range(301, 401)))
    stack.drain()
    assert dataset_record(stack, "as-names").live == 4


def test_a_truncated_feed_is_refused_and_the_live_version_serves_on(stack: Stack) -> None:
    stack.put("feed-names/_settings.json", json.dumps({"key": "asn"}))
    stack.put("feed-names/_fetched/asn.txt", asn_txt(range(1, 501)))
    stack.drain()
    stack.put("feed-names/_fetched/asn.txt", asn_txt(range(1, 521), tag="-b"))  # renamed and grown: no key gone
    stack.drain()
    assert (dataset_record(stack, "feed-names").live, stack.dataset("feed-names")["status"]) == (2, "READY")

    stack.put("feed-names/_fetched/asn.txt", asn_txt(range(1, 401), tag="-b"))  # 120 of 520 keys gone: 23%
    stack.drain()
    record = stack.dataset("feed-names")
    assert (record["status"], record["version"]) == ("FAILED", 2)
    problem = record["load"]["problems"][0]
    assert problem["object"] == "feed-names/_settings.json"
    assert problem["reason"] == (
        "23.08% of the keys version 2 holds (120 of 520) are gone; max_removed_percent allows 10% (and any 50 "
        "keys, removed_allowance)"
    )
    assert record["load"]["diff"]["gate"] == "max_removed_percent"
    assert not has_table(stack, "feed-names", 3)
    assert stored_table(stack, "feed-names", 2).rows == expected_rows(range(1, 521), tag="-b")

    stack.put("feed-names/_fetched/asn.txt", b"\n")  # an empty list: min_ranges
    stack.drain()
    record = stack.dataset("feed-names")
    assert (record["status"], record["version"]) == ("FAILED", 2)
    assert record["load"]["problems"][0]["reason"] == "the objects hold 0 keys; min_ranges asks for at least 1"


def test_clean_up_deletes_an_old_versions_table_and_an_emptied_folder_retires(stack: Stack) -> None:
    stack.put("names/_settings.json", json.dumps({"key": "id", "max_removed_percent": None}))
    for number in (1, 2, 3):
        stack.put("names/table.csv", "id,name\n" + "".join(f"{i},n{i}-{number}\n" for i in range(number * 10)))
        stack.drain()
    record = dataset_record(stack, "names")
    assert (record.live, record.previous) == (3, 2)
    assert [has_table(stack, "names", version) for version in (1, 2, 3)] == [False, True, True]
    assert version_info(stack, "names", 1) is None
    assert stored_table(stack, "names", 3).rows == {str(i): (f"n{i}-3",) for i in range(30)}

    stack.delete("names/table.csv")
    stack.drain()
    assert dataset_record(stack, "names").retired


def test_a_keyed_folder_with_invalid_rows_or_conflicting_keys_fails_naming_them(stack: Stack) -> None:
    stack.put("names/_settings.json", json.dumps({"key": "id"}))
    stack.put("names/a.csv", "id,name\n1,one\n,none\n2,two\n")
    stack.drain()
    record = stack.dataset("names")
    assert record["status"] == "FAILED"
    reasons = [(p["object"], p["line"], p["reason"]) for p in record["load"]["problems"]]
    assert reasons == [
        ("", None, "1 invalid rows; the folder's settings allow 0"),
        ("names/a.csv", 3, "the row has no id"),
    ]
    stack.put("names/_settings.json", json.dumps({"key": "id", "max_invalid_rows": 1}))
    stack.put("names/b.csv", "id,name\n2,deux\n")
    stack.drain()
    problem = stack.dataset("names")["load"]["problems"][0]
    assert (problem["object"], problem["line"]) == ("names/b.csv", 2)
    assert (
        "id '2' is held twice with different values, at names/a.csv line 4 and names/b.csv line 2" in problem["reason"]
    )


def test_a_range_folder_records_its_keyed_joins_with_its_version(stack: Stack) -> None:
    stack.put("routes/_settings.json", json.dumps({"keyed_joins": [JOIN]}))
    stack.put("routes/data.csv", ROUTED)
    stack.drain()
    assert stack.dataset("routes")["status"] == "READY"
    info = version_info(stack, "routes", 1)
    assert info is not None
    assert info.keyed_joins == (KeyedJoin("as-names", "asn", ("name", "country"), "as_"),)
    assert info.keyed is None


def test_keyed_joins_that_cannot_apply_fail_the_load_naming_the_settings(stack: Stack) -> None:
    stack.put("geo/_settings.json", json.dumps({"keyed_joins": [JOIN]}))  # geo has no asn column
    stack.put("geo/data.csv", GEO)
    stack.drain()
    record = stack.dataset("geo")
    assert record["status"] == "FAILED"
    assert record["load"]["problems"][0] == {
        "object": "geo/_settings.json",
        "line": None,
        "reason": "keyed_joins.on 'asn' is no column of the data; its columns are ['country']",
    }
    clash = {**JOIN, "on": "country", "columns": ["name"], "prefix": ""}
    stack.put("geo/_settings.json", json.dumps({"keyed_joins": [clash], "constants": {"name": "x"}}))
    stack.drain()
    problem = stack.dataset("geo")["load"]["problems"][0]
    assert (problem["object"], problem["reason"]) == (
        "geo/_settings.json",
        "keyed_joins would add ['name'], already columns of the data: give a prefix",
    )
    assert dataset_record(stack, "geo").live is None


def test_exports_and_sinks_do_nothing_for_a_keyed_version_and_never_retry(stack: Stack) -> None:
    stack.put("names/_settings.json", json.dumps({"key": "id"}))
    stack.put("names/table.csv", "id,name\n1,one\n2,two\n")
    stack.drain()
    for form in ("csv", "cidr", "mmdb"):
        stack.loader.queues.send(ExportVersion("names", 1, form))
    stack.loader.queues.send(PushSinks("names", 1))
    stack.drain()  # (no message handed back, none parked in a dead-letter queue)
    listed = stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_exports/")
    assert listed.get("KeyCount", 0) == 0
    record = stack.dataset("names")
    assert (record["status"], record["version"], record.get("sinks", [])) == ("READY", 1, [])
