"""A dataset's max age on the real loader and lookup function (S3, the queues, DynamoDB Local): ``GET /datasets``
shows it stale once its live version is older than ``max_age``, fresh again once a newer version is live, and the
fetch function's round counts the stale datasets as the ``DatasetsStale`` metric."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from fencepost.bootstrap.fetch_wiring import FetchFunction, fetch_function
from fencepost.observability import FETCH_SERVICE, NAMESPACE
from tests.support import LambdaContext
from tests.support.stacks import Stack

MAX_AGE = 5  # seconds: long enough for a listing read right after a load to see it fresh


def freshness(stack: Stack, name: str) -> dict[str, Any]:
    listed = {d["name"]: d for d in stack.get("/datasets")[1]["datasets"]}
    assert listed[name] == stack.dataset(name)  # the list and the dataset alone agree
    return {key: listed[name][key] for key in ("version", "stale", "age_seconds", "max_age_seconds")}


def stale_count(fetch: FetchFunction, metrics: Path) -> int:
    """One scheduled round of the fetch function (no source to check), and the ``DatasetsStale`` it wrote."""
    metrics.unlink(missing_ok=True)
    assert fetch.handler({}, LambdaContext()) == {"checked": []}
    (line,) = [json.loads(text) for text in metrics.read_text().splitlines()]
    declared = line["_aws"]["CloudWatchMetrics"][0]
    assert (declared["Namespace"], declared["Dimensions"], line["service"]) == (NAMESPACE, [["service"]], FETCH_SERVICE)
    assert {"Name": "DatasetsStale", "Unit": "Count"} in declared["Metrics"]
    (count,) = line["DatasetsStale"]  # one value: one round
    return int(count)


@pytest.mark.usefixtures("fetch")  # the fetch function's environment, as make run sets it
def test_stale_by_age_then_fresh_after_a_load_and_counted_by_the_fetch_round(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    metrics = tmp_path / "metrics.log"
    monkeypatch.setenv("METRICS_FILE", str(metrics))
    round_ = fetch_function()  # wired as the fetch fixture's, its metrics kept in a file
    # Given a dataset whose folder says "max_age": "5s", and one with no max age
    stack.put("geo/_settings.json", json.dumps({"max_age": f"{MAX_AGE}s"}))
    stack.put("geo/a.csv", "1.0.0.0,1.0.0.255,AU\n")
    stack.put("plain/a.csv", "2.0.0.0,2.0.0.255,FR\n")
    stack.drain()
    fresh = freshness(stack, "geo")
    assert (fresh["version"], fresh["stale"], fresh["max_age_seconds"]) == (1, False, MAX_AGE)
    assert 0 <= fresh["age_seconds"] <= MAX_AGE
    assert freshness(stack, "plain") == {"version": 1, "stale": None, "age_seconds": None, "max_age_seconds": None}
    assert stale_count(round_, metrics) == 0
    fresh_answer = stack.get("/lookup", ip="1.0.0.7", dataset="geo")
    # When its version is older than that
    time.sleep(MAX_AGE + 1.5 - fresh["age_seconds"])
    stale = freshness(stack, "geo")
    assert (stale["version"], stale["stale"]) == (1, True)
    assert stale["age_seconds"] > MAX_AGE
    # Then lookups answer as before, word for word (staleness is never in an answer)
    assert stack.get("/lookup", ip="1.0.0.7", dataset="geo") == fresh_answer
    assert (fresh_answer[0], fresh_answer[1]["version"], fresh_answer[1]["data"]) == (200, 1, {"col3": "AU"})
    assert "stale" not in json.dumps(fresh_answer[1])
    # And the fetch function's round counts it
    assert stale_count(round_, metrics) == 1
    # When a newer version goes live: fresh again, and no longer counted
    stack.put("geo/a.csv", "1.0.0.0,1.0.1.255,AU\n")
    stack.drain()
    again = freshness(stack, "geo")
    assert (again["version"], again["stale"]) == (2, False)
    assert again["age_seconds"] <= MAX_AGE
    assert stale_count(round_, metrics) == 0
