"""The push step on in-memory fakes: it pushes the version live when it runs (not the one its message names), keeps
each sink's state on the record, and a failure keeps the last push's state with the error beside it, counts
``SinkFailed``, announces a "Dataset sink failed" event the schema describes, and hands the message back until its
last delivery."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from fencepost.core.events.kinds import Event
from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.sinks.sink_settings import PrefixListSink, WafSink
from fencepost.core.sinks.state import PushFailed, SinkState
from fencepost.loading.delivery import Delivery, HandBack
from fencepost.loading.messages import PushSinks
from fencepost.loading.pushing import SinkPusher
from fencepost.model import DatasetRecord, VersionInfo
from tests.fakes.kernel import FakeTelemetry
from tests.support.change_events import check

V4 = 4


@dataclass
class Pushed:
    sets: list[str]
    entries: int
    changed: int
    rule_group: str | None = None


@dataclass
class Recorded:
    """Datasets, versions, settings and sinks in memory."""

    record: DatasetRecord
    document: str = '{"sinks": {"waf": true, "prefix_list": {"id": "pl-0123456789abcdef0"}}}'
    pushed: list[tuple[str, int, Mapping[int, list[str]]]] = field(default_factory=list)
    refuse: str | None = None
    refuse_all: bool = False  # every sink's push fails, not only the WAF one
    events: list[Event] = field(default_factory=list)
    publishes: list[int] = field(default_factory=list)  # the events of each publish call

    def get(self, name: str, *args: Any, consistent: bool = False) -> Any:
        if args:  # the versions' get(dataset, version)
            return VersionInfo(name, args[0], ("list",), {})
        return self.record

    def set_sinks(self, name: str, states: list[SinkState]) -> None:
        self.record.sinks = states

    def pieces(self, info: VersionInfo) -> Iterator[tuple[int, int, int, list[str]]]:
        yield V4, 10 << 24, (11 << 24) - 1, [f"v{info.version}"]

    def settings(self, dataset: str) -> FolderSettings:
        return FolderSettings.parse(self.document.encode(), dataset)

    def push(self, dataset: str, sink: WafSink | PrefixListSink, networks: Mapping[int, list[str]]) -> Pushed:
        if self.refuse and (self.refuse_all or isinstance(sink, WafSink)):
            raise PushFailed(self.refuse, "WAFLimitsExceededException")
        self.pushed.append((type(sink).__name__, self.record.live or 0, networks))
        return Pushed(["a-v4-1"], len(networks[V4]), len(networks[V4]))

    def publish(self, *events: Event) -> list[Event]:
        self.events.extend(events)
        self.publishes.append(len(events))
        return []


def pusher(world: Recorded, telemetry: FakeTelemetry) -> SinkPusher:
    return SinkPusher(
        datasets=world,
        versions=world,
        folder=world,
        waf=world,
        prefix_lists=world,
        telemetry=telemetry,
        clock=lambda: 1_795_000_000.0,
        max_receives=3,
        retry_base=5.0,
        events=world,
    )


def test_the_version_live_now_is_pushed_whatever_the_message_names() -> None:
    world = Recorded(DatasetRecord("drop", live=7))
    pusher(world, FakeTelemetry()).on_push(PushSinks("drop", 3), Delivery(deadline=0.0))
    assert [(kind, live) for kind, live, _ in world.pushed] == [("PrefixListSink", 7), ("WafSink", 7)]
    assert world.pushed[0][2] == {V4: ["10.0.0.0/8"], 6: []}
    assert [(s.sink, s.version, s.entries, s.error) for s in world.record.sinks] == [
        ("prefix_list", 7, 1, None),
        ("waf", 7, 1, None),
    ]


def test_a_failed_sink_keeps_its_last_push_records_the_error_announces_it_and_is_handed_back() -> None:
    before = SinkState("waf", version=6, pushed_at="2026-11-28T00:00:00+00:00", entries=1, sets=["a-v4-1"])
    world = Recorded(DatasetRecord("drop", live=7, sinks=[before]), refuse="AWS WAF refused: quota")
    telemetry = FakeTelemetry()
    with pytest.raises(HandBack) as handed:
        pusher(world, telemetry).on_push(PushSinks("drop", 7), Delivery(deadline=0.0, receive_count=2))
    assert handed.value.delay == 10.0  # the backoff doubles from retry_base
    prefix_list, waf = world.record.sinks
    assert (prefix_list.version, prefix_list.error) == (7, None)  # the other sink is pushed all the same
    assert (waf.version, waf.sets, waf.error) == (6, ["a-v4-1"], "AWS WAF refused: quota")
    assert waf.failed_at == "2026-11-18T11:06:40+00:00"  # the clock, in UTC
    assert telemetry.metrics.totals["SinkFailed"] == 1
    (event,) = world.events
    assert dict(event.detail) == {
        "dataset": "drop",
        "kind": "sink_failed",
        "version": 7,
        "sink": "waf",
        "target": "WAF IP sets (REGIONAL)",
        "error": "AWS WAF refused: quota",
    }
    check({"detail-type": event.kind.detail_type, "source": "fencepost", "detail": dict(event.detail)})


def test_the_last_delivery_of_a_failed_push_is_not_handed_back() -> None:
    world = Recorded(DatasetRecord("drop", live=7), refuse="AWS WAF refused: quota")
    pusher(world, FakeTelemetry()).on_push(PushSinks("drop", 7), Delivery(deadline=0.0, receive_count=3))
    assert world.record.sinks[1].error == "AWS WAF refused: quota"


def test_a_dataset_without_a_live_version_or_sinks_pushes_nothing() -> None:
    for world in (Recorded(DatasetRecord("drop")), Recorded(DatasetRecord("drop", live=1), document="{}")):
        pusher(world, FakeTelemetry()).on_push(PushSinks("drop", 1), Delivery(deadline=0.0))
        assert (world.pushed, world.record.sinks) == ([], [])


def test_the_sinks_that_failed_one_push_are_announced_in_one_publish() -> None:
    # One publish holds a push at most EVENTS_SECONDS, however many of its sinks failed
    world = Recorded(DatasetRecord("drop", live=7), refuse="throttled", refuse_all=True)
    with pytest.raises(HandBack):
        pusher(world, FakeTelemetry()).on_push(PushSinks("drop", 7), Delivery(deadline=0.0, receive_count=1))
    assert world.publishes == [2]
    assert [event.detail["sink"] for event in world.events] == ["prefix_list", "waf"]
