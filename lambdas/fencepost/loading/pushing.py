"""Pushing a dataset's live version to its folder's sinks (``core.sinks``): WAF IP sets, a managed prefix list.

A ``PushSinks`` message is sent when a version goes live (``loading.going_live``, only when the folder names sinks)
and when a rollback or roll forward changes the live version (``handlers/admin.py``). It travels on the control queue,
off the lookup path: lookups never wait for a sink, and a sink that fails changes nothing they answer. A build the
gates refused never goes live, so it is never pushed.

The push reads which version is live now and pushes that one, whatever version the message names: messages that
arrive late or out of order push the same version again, which changes nothing (each adapter writes only what
differs). Each sink's outcome is recorded on the dataset's record (``GET /datasets/{name}``, ``sinks``). A sink that
fails (a quota, throttling, a permission, a column ``where`` names missing) keeps the state of its last push with
the error beside it, counts a ``SinkFailed`` metric (an alarm), announces a "Dataset sink failed" change event
(``fencepost.core.events``), and hands the message back to be tried again after
a backoff, until its last delivery.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.events import ChangeEvents, Event, NoEvents
from fencepost.core.events.kinds import sink_failed
from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.formats.base import FileError
from fencepost.core.sinks.plan import SinkError, matching, networks
from fencepost.core.sinks.sink_settings import PrefixListSink, WafSink
from fencepost.core.sinks.state import PushFailed, SinkState
from fencepost.core.storage.objects import FolderError
from fencepost.loading.delivery import Delivery, HandBack, backoff
from fencepost.loading.messages import PushSinks
from fencepost.loading.ports import Clock, Outbox, Telemetry
from fencepost.loading.reports import iso
from fencepost.model import DatasetRecord, VersionInfo


class Pushed(Protocol):
    @property
    def sets(self) -> list[str]: ...
    @property
    def entries(self) -> int: ...
    @property
    def changed(self) -> int: ...
    @property
    def rule_group(self) -> str | None: ...


class WafPort(Protocol):
    """A dataset's IP sets (``aws.waf_sets``); raises ``PushFailed``."""

    def push(self, dataset: str, sink: WafSink, networks: Mapping[int, list[str]]) -> Pushed: ...


class PrefixListPort(Protocol):
    """A managed prefix list (``aws.prefix_lists``); raises ``PushFailed``."""

    def push(self, dataset: str, sink: PrefixListSink, networks: Mapping[int, list[str]]) -> Pushed: ...


class SinkDatasets(Protocol):
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def set_sinks(self, name: str, states: list[SinkState]) -> None: ...


class SinkVersions(Protocol):
    def get(self, dataset: str, version: int) -> VersionInfo | None: ...
    def pieces(self, info: VersionInfo) -> Iterator[tuple[int, int, int, list[str]]]: ...


class FolderSettingsRead(Protocol):
    def settings(self, dataset: str) -> FolderSettings: ...


@dataclass(frozen=True, slots=True)
class SinkTrigger:
    """Told of each version going live: asks for a push when the folder names sinks."""

    folder: FolderSettingsRead
    outbox: Outbox

    def __call__(self, dataset: str, version: int) -> None:
        try:
            named = self.folder.settings(dataset).sinks.named
        except (FolderError, FileError):
            return  # settings that cannot be read named no sink the build could have used
        if named:
            self.outbox.send(PushSinks(dataset, version))


@dataclass(kw_only=True, frozen=True, slots=True)
class SinkPusher:
    datasets: SinkDatasets
    versions: SinkVersions
    folder: FolderSettingsRead
    waf: WafPort
    prefix_lists: PrefixListPort
    telemetry: Telemetry
    clock: Clock
    max_receives: int
    retry_base: float
    events: ChangeEvents = field(default_factory=NoEvents)  # "Dataset sink failed", at each failed push

    def on_push(self, message: PushSinks, delivery: Delivery) -> None:
        dataset, log = message.dataset, self.telemetry.logger
        record = self.datasets.get(dataset, consistent=True)
        if record is None or record.live is None or record.retired:
            return
        try:
            named = self.folder.settings(dataset).sinks.named
        except (FolderError, FileError) as error:
            extra = {"dataset": dataset, "reason": str(error)}
            log.warning("a push found the folder's settings unreadable", extra=extra)
            return
        info = self.versions.get(dataset, record.live)
        if info is None:
            return  # replaced since it was read: the message of its replacement pushes that
        if info.keyed is not None:  # (a keyed folder's settings name no sinks: core.folders.keyed_settings)
            log.info("no push: a keyed version holds no ranges", extra={"dataset": dataset, "version": record.live})
            return
        before = {state.sink: state for state in record.sinks}
        states, failures, failed = [], [], []
        for name, sink in sorted(named.items()):
            state, failure = self._push(info, name, sink, before.get(name, SinkState(name)))
            states.append(state)
            if failure is not None:
                failures.append(f"{name}: {failure[0]}")
                failed.append(failure[1])
        self.datasets.set_sinks(dataset, states)
        if not failures:
            return
        self.events.publish(*failed)  # one publish: at most EVENTS_SECONDS, however many sinks failed
        reason = "; ".join(failures)
        if delivery.receive_count >= self.max_receives:
            log.warning("a sink's push failed its last delivery", extra={"dataset": dataset, "reason": reason})
            return
        raise HandBack(reason, backoff(delivery, self.retry_base))

    def _push(
        self, info: VersionInfo, name: str, sink: WafSink | PrefixListSink, before: SinkState
    ) -> tuple[SinkState, tuple[str, Event] | None]:
        """Push ``info`` to one sink: its state after, and when it failed, the error and its 'Dataset sink failed'
        event."""
        log, now = self.telemetry.logger, iso(self.clock())
        try:
            found = networks(matching(self.versions.pieces(info), info.columns, sink.where))
            if isinstance(sink, WafSink):
                pushed = self.waf.push(info.dataset, sink, found)
            else:
                pushed = self.prefix_lists.push(info.dataset, sink, found)
        except (PushFailed, SinkError) as error:
            code = error.code if isinstance(error, PushFailed) else "InvalidSetting"
            self.telemetry.metrics.add_metric(name="SinkFailed", unit=MetricUnit.Count, value=1)
            extra = {"dataset": info.dataset, "version": info.version, "sink": name, "code": code, "reason": str(error)}
            log.warning("a sink's push failed", extra=extra)
            target = sink.id if isinstance(sink, PrefixListSink) else f"WAF IP sets ({sink.scope})"
            event = sink_failed(info.dataset, info.version, sink=name, target=target, error=str(error))
            return before.failed(str(error), now), (str(error), event)
        extra = {"dataset": info.dataset, "version": info.version, "sink": name, "changed": pushed.changed}
        log.info("sink pushed", extra=extra | {"entries": pushed.entries, "sets": len(pushed.sets)})
        state = SinkState(name, info.version, now, pushed.entries, pushed.sets, pushed.changed, pushed.rule_group)
        return state, None
