"""Diffs between versions through the real loader (moto's S3, DynamoDB Local): the pieces file beside the report,
the figures in ``GET /datasets/{name}``, and the gate keeping the live version."""

from __future__ import annotations

import gzip
import json

from tests.integration.conftest import Stack
from tests.integration.test_loader import _batch_lookup
from tests.unit.test_version_diffs import V1, V2


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
