"""The EventBridge adapter on moto's server: events put ten to a call reach a rule's target; an entry EventBridge
fails (``FailedEntryCount``) is sent again and counted once delivered; a bus that never answers costs at most the
adapter's time, and what it could not deliver is counted (``EventsFailed``), never raised."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from fencepost.aws.events import FAILED_METRIC, PUT_METRIC, EventBus, make_events_client
from fencepost.core.events import Event
from fencepost.core.events import kinds as k
from local.dynamodb import local_client
from local.ports import free_port
from tests.support.change_events import Listener


class Counted:
    """What an ``EventBus`` counts and says."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.warnings: list[tuple[str, dict[str, Any]]] = []

    def count(self, name: str, value: int) -> None:
        self.counts[name] = self.counts.get(name, 0) + value

    def warn(self, message: str, extra: dict[str, Any]) -> None:
        self.warnings.append((message, extra))


class FailingFirst:
    """The real client, except that the first entry of the first call fails as EventBridge fails one (throttled)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls: list[int] = []

    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:  # noqa: N803 - boto3's name
        self.calls.append(len(Entries))
        if len(self.calls) > 1:
            answer: dict[str, Any] = self.client.put_events(Entries=Entries)
            return answer
        rest = self.client.put_events(Entries=Entries[1:])["Entries"]
        failed = {"ErrorCode": "ThrottlingException", "ErrorMessage": "Rate exceeded"}
        return {"FailedEntryCount": 1, "Entries": [failed, *rest]}


def _stale(n: int) -> Event:
    return k.dataset_stale(f"d{n}", 1, loaded_at="2026-11-29T00:00:00+00:00", age_seconds=100, max_age_seconds=10)


def test_events_go_ten_to_a_call_and_reach_the_rules_target(moto_server: str) -> None:
    listener = Listener.create(local_client(moto_server, "events"), local_client(moto_server, "sqs"))
    client, counted = FailingFirst(local_client(moto_server, "events")), Counted()
    client.calls.append(0)  # no failure this time
    bus = EventBus(client, listener.source, seconds=2, count=counted.count, warn=counted.warn)
    assert bus.publish(*[_stale(n) for n in range(12)]) == []
    assert client.calls == [0, 10, 2]
    received = listener.received(wait=2)
    assert sorted(event["detail"]["dataset"] for event in received) == sorted(f"d{n}" for n in range(12))
    assert {(event["source"], event["detail-type"]) for event in received} == {(listener.source, "Dataset stale")}
    assert counted.counts == {PUT_METRIC: 12}


def test_an_entry_eventbridge_fails_is_sent_again_and_delivered(moto_server: str) -> None:
    listener = Listener.create(local_client(moto_server, "events"), local_client(moto_server, "sqs"))
    client, counted = FailingFirst(local_client(moto_server, "events")), Counted()
    pauses: list[float] = []
    bus = EventBus(client, listener.source, seconds=2, count=counted.count, warn=counted.warn, sleep=pauses.append)
    assert bus.publish(_stale(1), _stale(2), _stale(3)) == []
    assert client.calls == [3, 1]  # the failed entry alone, once more
    assert pauses == [0.1]
    assert sorted(event["detail"]["dataset"] for event in listener.received(wait=2)) == ["d1", "d2", "d3"]
    assert counted.counts == {PUT_METRIC: 3}
    assert counted.warnings == []


@pytest.mark.parametrize(("silent", "events"), [(False, 2), (True, 2), (True, 50)], ids=["refused", "silent", "many"])
def test_a_bus_that_never_answers_costs_at_most_its_time_and_is_counted(
    silent: bool, events: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing listens there (each try refused at once), or a socket takes the request and never answers
    listener = socket.create_server(("127.0.0.1", 0)) if silent else None
    port = listener.getsockname()[1] if listener is not None else free_port()
    monkeypatch.setenv("AWS_ENDPOINT_URL_EVENTBRIDGE", f"http://127.0.0.1:{port}")
    counted = Counted()
    bus = EventBus(make_events_client(1.0), "fencepost", seconds=1.0, count=counted.count, warn=counted.warn)
    started = time.monotonic()
    lost = bus.publish(*[_stale(n) for n in range(events)])  # many: five calls a try, none past the second
    assert time.monotonic() - started <= 1.0 + 0.2  # its own second (and the client's own bookkeeping)
    assert [event.dataset for event in lost] == [f"d{n}" for n in range(events)]
    assert counted.counts == {FAILED_METRIC: events}
    ((message, extra),) = counted.warnings
    assert (message, extra["events"], extra["kinds"]) == ("change events not delivered", events, ["dataset_stale"])
    assert ("ReadTimeoutError" if silent else "EndpointConnectionError") in extra["error"]
    if listener is not None:
        listener.close()


def test_an_entry_over_eventbridges_size_is_counted_and_never_sent(moto_server: str) -> None:
    client, counted = FailingFirst(local_client(moto_server, "events")), Counted()
    bus = EventBus(client, "fencepost", seconds=1, count=counted.count, warn=counted.warn)
    huge = Event(k.SINK_FAILED, {"dataset": "d", "kind": "sink_failed", "target": "x" * 300_000})
    assert bus.publish(huge) == [huge]
    assert client.calls == []
    assert counted.counts == {FAILED_METRIC: 1}
