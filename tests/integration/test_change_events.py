"""Change events on moto's EventBridge, through the real loader, fetch function and admin commands on DynamoDB Local
and moto's S3 and SQS: a rule with a queue as its target receives an event for each change of a dataset (a version
live, a build failed, a build a gate refused with its figures, a rollback, a source failing, a dataset turned
stale), each valid against ``docs/events.schema.json``; what must be announced once is announced once; and a bus
that never answers fails no load."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fencepost.bootstrap.fetch_wiring import fetch_function
from fencepost.bootstrap.loader_wiring import loader_function
from fencepost.handlers import admin
from local.dynamodb import local_client
from local.ports import free_port
from tests.publisher import Publisher
from tests.support.change_events import Listener
from tests.support.sources import check
from tests.support.stacks import Stack


@pytest.fixture
def listener(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Listener:
    """A rule on moto's default bus for this test's own source, and the functions' environment pointing at it (set
    before the stack wires them)."""
    created = Listener.create(local_client(moto_server, "events"), local_client(moto_server, "sqs"))
    monkeypatch.setenv("CHANGE_EVENTS", "true")
    monkeypatch.setenv("EVENTS_SOURCE", created.source)
    monkeypatch.setenv("AWS_ENDPOINT_URL_EVENTBRIDGE", moto_server)
    return created


@pytest.fixture
def site() -> Iterator[Publisher]:
    with Publisher() as publisher:
        yield publisher


def detail(events: list[dict[str, Any]], detail_type: str) -> dict[str, Any]:
    (found,) = [event["detail"] for event in events if event["detail-type"] == detail_type]
    assert isinstance(found, dict)
    return found


def test_each_change_of_a_dataset_is_an_event_on_the_bus(listener: Listener, stack: Stack) -> None:
    # A first version, then a second: each live, the second with its diff against the first
    stack.put("geo/a.csv", "1.0.0.0,1.0.0.255,AU\n2.0.0.0,2.0.0.255,FR\n3.0.0.0,3.0.0.255,DE\n")
    stack.drain()
    first = detail(listener.received(wait=5), "Dataset version live")
    assert (first["dataset"], first["version"], first["previous"], first["ranges"]) == ("geo", 1, None, 3)
    assert (first["diff"]["baseline"], first["diff"]["added"]) == (None, 0)  # nothing to compare with
    stack.put("geo/a.csv", "1.0.0.0,1.0.0.255,AU\n2.0.0.0,2.0.0.255,FR\n3.0.0.0,3.0.0.255,NL\n")
    stack.drain()
    second = detail(listener.received(wait=5), "Dataset version live")
    assert (second["version"], second["previous"], second["diff"]["baseline"], second["diff"]["changed"]) == (
        2,
        1,
        1,
        1,
    )
    # A build a gate refuses: the gate, its limit and the figures it decided on
    stack.put("geo/_settings.json", json.dumps({"min_ranges": 5}))
    stack.drain()
    refused = detail(listener.received(wait=5), "Dataset build refused")
    assert (refused["build"], refused["live"], refused["gate"], refused["limit"]) == (3, 2, "min_ranges", 5)
    assert "3 ranges; min_ranges asks for at least 5" in refused["reason"]
    assert refused["diff"]["gate"] == "min_ranges"
    # A build that fails: the reason, and the version that keeps answering
    stack.put("geo/_settings.json", json.dumps({}))
    stack.put("geo/b.csv", "not an address,x\n")
    stack.drain()
    failed = detail(listener.received(wait=5), "Dataset build failed")
    assert (failed["dataset"], failed["live"]) == ("geo", 2)
    assert failed["reason"] == "the file has a header but no ranges"  # its line a header, no row after it
    # A rollback, and a roll forward again
    assert admin.main(["rollback", "geo"]) == 0
    assert admin.main(["rollback", "geo"]) == 0
    back, forward = (event["detail"] for event in listener.received(wait=5))
    assert (back["kind"], back["version"], back["previous"], back["held"]) == ("rolled_back", 1, 2, True)
    assert (forward["version"], forward["previous"], forward["held"]) == (2, 1, False)
    assert listener.received() == []  # nothing more


def test_a_failing_source_and_a_stale_dataset_are_announced_once(
    listener: Listener, stack: Stack, site: Publisher, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_MIN_EVERY_SECONDS", "1")
    monkeypatch.setenv("SOURCE_HTTPS_ONLY", "false")
    monkeypatch.setenv("SOURCE_ALLOW_LOOPBACK", "true")
    monkeypatch.setenv("FETCH_ATTEMPTS", "1")
    fetch = fetch_function()
    # A dataset whose version is older than its max age after a second, and a source the publisher refuses
    stack.put("geo/_settings.json", json.dumps({"max_age": "1s"}))
    stack.put("geo/a.csv", "1.0.0.0,1.0.0.255,AU\n")
    stack.drain()
    assert [event["detail-type"] for event in listener.received(wait=5)] == ["Dataset version live"]
    site.publish("/drop.txt", b"", refuse=(404, "Not Found"))
    stack.put("drop/_source.json", json.dumps({"url": site.url("/drop.txt"), "every": "1h"}))
    time.sleep(2.1)  # a whole-second age past the 1 s max age; the source past its 1 s minimum interval
    # Three failed checks make the source failing: announced at the third, once
    for _ in range(2):
        assert check(fetch, stack, dataset="drop") == {"drop": "FAILED"}
        assert listener.received() == []
    assert check(fetch, stack, dataset="drop") == {"drop": "FAILED"}
    failing = detail(listener.received(wait=5), "Dataset source failing")
    assert (failing["dataset"], failing["outcome"], failing["failures"]) == ("drop", "FAILED", 3)
    assert "404" in failing["reason"]
    # The scheduled round: the stale dataset announced (the failing source, still failing, is not again)
    assert check(fetch, stack) == {}  # not due: checked a moment ago
    stale = detail(listener.received(wait=5), "Dataset stale")
    assert (stale["dataset"], stale["version"], stale["max_age_seconds"]) == ("geo", 1, 1)
    assert stale["age_seconds"] >= 1
    assert check(fetch, stack) == {}
    assert check(fetch, stack, dataset="drop") == {"drop": "FAILED"}
    assert listener.received() == []  # each announced once
    # Fresh again after a load, then stale again: announced again, for the new version
    stack.put("geo/a.csv", "1.0.0.0,1.0.1.255,AU\n")
    stack.drain()
    assert [event["detail-type"] for event in listener.received(wait=5)] == ["Dataset version live"]
    time.sleep(2.1)  # ages are whole seconds: stale once 2 s old
    check(fetch, stack)
    assert detail(listener.received(wait=5), "Dataset stale")["version"] == 2


def test_a_bus_that_never_answers_fails_no_load_and_is_counted(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    metrics = tmp_path / "metrics.log"
    monkeypatch.setenv("METRICS_FILE", str(metrics))
    monkeypatch.setenv("CHANGE_EVENTS", "true")
    monkeypatch.setenv("EVENTS_SECONDS", "0.5")
    monkeypatch.setenv("AWS_ENDPOINT_URL_EVENTBRIDGE", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    stack.loader = loader_function()
    for worker in stack.workers:
        worker.handler = stack.loader.handler
    started = time.monotonic()
    stack.put("geo/a.csv", "1.0.0.0,1.0.0.255,AU\n")
    stack.drain()
    assert time.monotonic() - started < 20
    assert (stack.dataset("geo")["status"], stack.dataset("geo")["version"]) == ("READY", 1)
    assert stack.get("/lookup", ip="1.0.0.7", dataset="geo")[1]["data"] == {"col3": "AU"}
    lines = [json.loads(text) for text in metrics.read_text().splitlines()]
    assert sum(sum(line.get("EventsFailed", [0])) for line in lines) == 1  # the version live, counted as lost
