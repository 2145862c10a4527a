"""Diffs between versions through the real loader (moto's S3, DynamoDB Local): the pieces file beside the report,
the figures in ``GET /datasets/{name}``, and the gate keeping the live version."""

from __future__ import annotations

import gzip
import json

from tests.integration.conftest import Stack
from tests.integration.test_loader import _batch_lookup
from tests.support import LambdaContext, event
from tests.unit.core.test_version_diffs import V1, V2


def test_a_reload_reports_its_diff_and_the_gate_keeps_the_live_version(stack: Stack) -> None:
    stack.put("geo/ranges.csv", V1)
    stack.drain()
    assert stack.dataset("geo")["load"]["diff"]["note"] == "the first version of the dataset: nothing to compare with"
    stack.put("geo/ranges.csv", V2)
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("READY", 2)
    diff = record["load"]["diff"]
    assert (diff["baseline"], diff["added"], diff["removed"], diff["changed"], diff["unchanged"]) == (1, 1, 1, 1, 1)
    assert diff["changed_percent_ipv4"] > 0
    assert stack.report(record["load"]["report"])["diff"] == diff
    kept = stack.s3.get_object(Bucket=stack.bucket, Key="_reports/geo/2.changes.gz")["Body"].read()
    assert [json.loads(line)["change"] for line in gzip.decompress(kept).decode().splitlines()] == [
        "changed",
        "added",
        "removed",
    ]
    # A third version that changes more than the folder allows fails; version 2 keeps answering
    before = _batch_lookup(stack, "geo", ["1.0.1.1", "2.0.0.1"])
    stack.put("geo/_settings.json", json.dumps({"max_change_percent": 0.000001}))
    stack.put("geo/ranges.csv", V1)
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 2)
    assert "max_change_percent allows" in record["load"]["problems"][0]["reason"]
    assert record["load"]["diff"]["baseline"] == 2  # the figures that failed it
    assert _batch_lookup(stack, "geo", ["1.0.1.1", "2.0.0.1"]) == before


def test_the_diff_route_pages_the_latest_builds_changes_as_the_sample_event_asks(stack: Stack) -> None:
    stack.put("geo/ranges.csv", V1)
    stack.drain()
    status, body = stack.get("/datasets/geo/diff")
    assert (status, body["version"], body["changes"], body["next"]) == (200, 1, [], None)
    assert body["diff"]["baseline"] is None
    stack.put("geo/ranges.csv", V2)
    stack.drain()
    response = stack.lookup.handler(event("dataset-diff-get"), LambdaContext())  # limit=2
    first = json.loads(response["body"])
    assert (response["statusCode"], response["headers"]["Cache-Control"]) == (200, "no-store")
    assert (first["dataset"], first["version"], first["status"], first["diff"]["baseline"]) == ("geo", 2, "READY", 1)
    assert [change["start"] for change in first["changes"]] == ["1.0.1.0", "2.0.0.0"]
    status, second = stack.get("/datasets/geo/diff", limit="2", cursor=first["next"])
    assert (status, second["changes"], second["next"]) == (
        200,
        [{"start": "2001:db8::", "end": "2001:db8::ffff", "change": "removed", "data": None}],
        None,
    )
    # A newer load replaces the build the cursor pages
    stack.put("geo/ranges.csv", V1)
    stack.drain()
    status, expired = stack.get("/datasets/geo/diff", cursor=first["next"])
    assert (status, expired["error"]["code"]) == (410, "CURSOR_EXPIRED")
    status, third = stack.get("/datasets/geo/diff")
    assert (third["version"], [c["change"] for c in third["changes"]]) == (3, ["changed", "removed", "added"])
    for query, code in (({"limit": "0"}, "INVALID_REQUEST"), ({"cursor": "x.y"}, "INVALID_REQUEST")):
        assert stack.get("/datasets/geo/diff", **query)[1]["error"]["code"] == code
    status, unknown = stack.get("/datasets/nosuch/diff")
    assert (status, unknown["error"]["code"]) == (404, "UNKNOWN_DATASET")
