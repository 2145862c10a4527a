"""A corpus of bad files dropped onto a live dataset: each load ends FAILED (or skips rows, when the folder's
settings allow) with a report that names the problem, and the live version keeps answering exactly as before.
Files that cross the loader's limits (a gzip that expands to one huge line or to many bytes, too many rows, a
directory of too many partitions) fail within seconds, the same way."""

from __future__ import annotations

import gzip
import json
import time
from typing import Any, NamedTuple

import pytest

from tests.support.lookups import GOOD, PROBES, batch_lookup
from tests.support.stacks import Stack


class BadFile(NamedTuple):
    name: str
    body: bytes
    reason: str  # a part of the first problem's reason
    line: int | None


def _csv(*rows: str) -> bytes:
    return ("start,end,country\n" + "".join(f"{row}\n" for row in rows)).encode()


CORPUS = [
    BadFile("binary data", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "not UTF-8", 1),
    BadFile("truncated gzip", gzip.compress(_csv("2.0.0.0,2.0.0.255,XX") * 50)[:-40], "truncated or corrupt", None),
    BadFile("Latin-1 text", _csv("2.0.0.0,2.0.0.255,Zürich").decode().encode("latin-1"), "not UTF-8", 2),
    BadFile("UTF-16 with BOM", _csv("2.0.0.0,2.0.0.255,XX").decode().encode("utf-16"), "not UTF-8", 1),
    BadFile("zero bytes", b"", "the file is empty", None),
    BadFile("header only", b"start,end,country\n", "header but no ranges", None),
    BadFile("a 10 MB line", _csv("2.0.0.0,2.0.0.255," + "x" * 10_000_000), "longer than 1,048,576 bytes", 2),
    BadFile(
        "a gzip of one 96 MB line",
        gzip.compress(b"start,end,country\n2.0.0.0,2.0.0.255," + bytes(96_000_000), 9),
        "the line is longer than 1,048,576 bytes (MAX_LINE_BYTES)",
        2,
    ),
    BadFile("too many columns", _csv("2.0.0.0,2.0.0.255,XX,extra"), "4 columns where the file has 3", 2),
    BadFile("too few columns", _csv("2.0.0.0,2.0.0.255"), "2 columns where the file has 3", 2),
    BadFile("a reversed range", _csv("2.0.0.255,2.0.0.0,XX"), "is after end", 2),
    BadFile("mixed families", _csv("2.0.0.0,2001:db8::,XX"), "different address families", 2),
    BadFile("an unparsable address", _csv("2.0.0.x,2.0.0.255,XX"), "not an IPv4 or IPv6 address", 2),
    BadFile("an item over 400 KB", _csv("2.0.0.0,2.0.0.255," + "x" * 500_000), "does not fit a 400 KB", 2),
    BadFile("other columns", b"start,end,asn\n2.0.0.0,2.0.0.255,64500\n", "same columns", None),
]


def _answers(stack: Stack) -> list[Any]:
    return batch_lookup(stack, "geo", PROBES)


@pytest.mark.parametrize("bad", CORPUS, ids=[bad.name for bad in CORPUS])
def test_a_bad_file_fails_with_a_report_and_the_live_version_answers_as_before(stack: Stack, bad: BadFile) -> None:
    # Given a live version
    stack.put("geo/good.csv", GOOD)
    stack.drain()
    first = stack.dataset("geo")
    assert (first["status"], first["version"]) == ("READY", 1), json.dumps(first)
    before = _answers(stack)
    # When a bad file joins it
    stack.put("geo/bad.csv", bad.body)
    stack.drain()
    # Then the load FAILED, saying where and why, in the record and in the report
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1), json.dumps(record["load"])
    problems = record["load"]["problems"]
    reasons = " | ".join(problem["reason"] for problem in problems)
    assert bad.reason in reasons
    if bad.line is not None:
        assert any(p["object"] == "geo/bad.csv" and p["line"] == bad.line for p in problems), problems
    report = stack.report(record["load"]["report"])
    assert report["status"] == "FAILED"
    assert bad.reason in json.dumps(report["problems"])
    assert [o["key"] for o in report["objects"]] == ["geo/bad.csv", "geo/good.csv"]
    assert report["started_at"] is not None
    # And the live version answers exactly as before
    assert _answers(stack) == before


def _fails_within_seconds(
    stack: Stack, key: str, body: bytes, reason: str, line: int | None, *, where: str | None = None
) -> dict[str, Any]:
    """Put a bad object beside the live one: its load fails in seconds, saying where (``where``: the object named,
    when not this one), and nothing changes."""
    stack.put("geo/good.csv", GOOD)
    stack.drain()
    before = _answers(stack)
    started = time.monotonic()
    stack.put(key, body)
    stack.drain()
    seconds = time.monotonic() - started
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1), json.dumps(record["load"])
    problem = record["load"]["problems"][0]
    assert reason in problem["reason"]
    assert (problem["object"], problem["line"]) == (key if where is None else where, line)
    assert reason in json.dumps(stack.report(record["load"]["report"])["problems"])
    assert seconds < 20, seconds  # (settling takes one of them)
    assert _answers(stack) == before
    return record


# 76 KB of gzip that expands to 31 MB of rows (1.5 million of them, all alike)
HEADER, ROW = b"start,end,country\n", b"2.0.0.0,2.0.0.255,XX\n"
MANY_ROWS = gzip.compress(HEADER + ROW * 1_500_000, 9)


@pytest.mark.parametrize("stack", [{"MAX_OBJECT_BYTES": str(4 << 20)}], indirect=True)
def test_a_gzip_that_expands_to_more_than_an_object_may_hold_fails_at_once(stack: Stack) -> None:
    line = ((4 << 20) - len(HEADER)) // len(ROW) + 2  # the header, the rows that fit, then the one that does not
    _fails_within_seconds(stack, "geo/bomb.csv.gz", MANY_ROWS, "more than 4,194,304 bytes, decompressed", line)


def test_a_folder_may_lower_the_rows_a_build_reads(stack: Stack) -> None:
    stack.put("geo/_settings.json", json.dumps({"limits": {"max_build_rows": 1000}}))
    reason = "more than 1,000 rows together (limits.max_build_rows of geo/_settings.json; every line counts)"
    _fails_within_seconds(stack, "geo/many.csv.gz", MANY_ROWS, reason, 1000 - 4 + 1)  # (good.csv, read first: 4)


def test_a_folder_may_not_raise_a_limit(stack: Stack) -> None:
    stack.put("geo/good.csv", GOOD)
    stack.drain()
    before = _answers(stack)
    stack.put("geo/_settings.json", json.dumps({"limits": {"max_build_rows": 20_000_000}}))
    stack.put("geo/more.csv", _csv("2.0.0.0,2.0.0.255,XX"))
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    problem = record["load"]["problems"][0]
    assert problem["object"] == "geo/_settings.json"
    assert "limits.max_build_rows is 20,000,000, above the loader's MAX_BUILD_ROWS of 10,000,000" in problem["reason"]
    assert _answers(stack) == before


def test_a_settings_object_is_read_within_the_line_limit(stack: Stack) -> None:
    stack.put("geo/good.csv", GOOD)
    stack.drain()
    before = _answers(stack)
    # A valid settings document, padded to 2 MB (a settings object is parsed whole, so it is held to MAX_LINE_BYTES)
    stack.put("geo/_settings.json", b'{"max_invalid_rows": 0}' + b" " * 2_000_000)
    stack.put("geo/more.csv", _csv("2.0.0.0,2.0.0.255,XX"))
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    reason = record["load"]["problems"][0]["reason"]
    assert "geo/_settings.json holds more than 1,048,576 bytes (MAX_LINE_BYTES: it is read whole)" in reason
    assert _answers(stack) == before


@pytest.mark.parametrize("stack", [{"MAX_DIRECTORY_PARTITIONS": "3"}], indirect=True)
def test_a_version_spanning_too_many_partitions_fails_with_a_report(stack: Stack) -> None:
    # good.csv starts in one IPv4 and one IPv6 partition; these ranges in three more /20s of IPv6
    spread = _csv("2001:1db8::,2001:1db8::ff,A", "2001:2db8::,2001:2db8::ff,B", "2001:3db8::,2001:3db8::ff,C")
    reason = "the version's ranges start in 5 partitions (/8 blocks of IPv4, /20 blocks of IPv6); a version may span"
    _fails_within_seconds(stack, "geo/spread.csv", spread, reason, None, where="")  # (the version's, no object's)
    assert "at most 3 (MAX_DIRECTORY_PARTITIONS)" in stack.dataset("geo")["load"]["problems"][0]["reason"]


def test_invalid_rows_are_skipped_when_the_folder_allows_it(stack: Stack) -> None:
    stack.put("geo/_settings.json", json.dumps({"max_invalid_rows": 2}))
    stack.put("geo/good.csv", GOOD)
    stack.put("geo/some-bad.csv", _csv("2.0.0.0,2.0.0.255,XX", "2.0.1.9,2.0.1.0,YY", "2.0.2.0,2001:db8::,ZZ"))
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"], record["ranges"]) == ("READY", 1, 4)
    assert [(p["object"], p["line"]) for p in record["load"]["problems"]] == [
        ("geo/some-bad.csv", 3),
        ("geo/some-bad.csv", 4),
    ]
    assert stack.get("/lookup", ip="2.0.0.7", dataset="geo")[1]["data"] == {"country": "XX"}


def test_object_keys_with_spaces_and_unicode_load(stack: Stack) -> None:
    stack.put("geo/good.csv", GOOD)
    stack.put("geo/more ranges é – 2026.csv", _csv("2.0.0.0,2.0.0.255,XX"))
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("READY", 1)
    assert "geo/more ranges é – 2026.csv" in [o["key"] for o in record["objects"]]
    assert stack.get("/lookup", ip="2.0.0.1", dataset="geo")[1]["data"] == {"country": "XX"}


def test_folders_that_cannot_be_datasets_are_reported_and_change_nothing(stack: Stack) -> None:
    stack.put("geo/good.csv", GOOD)
    stack.drain()
    before = _answers(stack)
    stack.put("géo/data.csv", GOOD)
    stack.put("a b/data.csv", GOOD)
    stack.put("geo/../x.csv", GOOD)  # a literal key: its ".." segment makes it non-data
    stack.drain()
    rejected = stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_reports/_rejected/").get("Contents", [])
    assert sorted(stack.report(entry["Key"])["object"] for entry in rejected) == ["a b/data.csv", "géo/data.csv"]
    assert [d["name"] for d in stack.get("/datasets")[1]["datasets"]] == ["geo"]
    assert stack.dataset("geo")["version"] == 1
    assert _answers(stack) == before
