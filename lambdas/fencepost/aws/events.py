"""The one module that talks to EventBridge: change events (``fencepost.core.events``) put on the account's default
bus.

``PutEvents`` takes at most 10 entries a call, each under 256 KB (its ``Source``, ``DetailType`` and ``Detail`` as
UTF-8, ``docs/events.md``); a call may succeed for some entries and fail for others (``FailedEntryCount``, an
``ErrorCode`` on each failed entry), and only those are sent again. Failed entries and failed calls are retried with
backoff for at most ``seconds`` in all, however many entries (a call takes half of it at most, and none after the
first starts that could end past it), then counted (``EventsFailed``) and logged: an announcement never fails, nor
holds up beyond that time, the load, rollback or round that made it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, Final, Protocol

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws import USER_AGENT
from fencepost.core.events import ChangeEvents, Event, NoEvents

BATCH: Final = 10  # entries of one PutEvents call
MAX_ENTRY_BYTES: Final = 256 * 1024  # an entry's Source, DetailType and Detail (EventBridge's PutEvents limit)
FIRST_PAUSE: Final = 0.1  # seconds before the first retry; doubled each time
FAILED_METRIC: Final = "EventsFailed"
PUT_METRIC: Final = "EventsPut"


class Count(Protocol):
    def __call__(self, name: str, value: int) -> None: ...


class Warn(Protocol):
    def __call__(self, message: str, extra: dict[str, Any]) -> None: ...


def make_events_client(seconds: float) -> Any:
    """A client whose one try takes at most half of ``seconds`` (its connect and read timeouts a quarter each): the
    retries are ``EventBus``'s own, within the same time."""
    wait = seconds / 4
    config = Config(
        connect_timeout=wait, read_timeout=wait, retries={"max_attempts": 1, "mode": "standard"}, user_agent=USER_AGENT
    )
    return boto3.client("events", config=config)


def entry_size(entry: dict[str, Any]) -> int:
    """An entry's size as EventBridge counts it against its limit."""
    return sum(len(str(entry.get(name, "")).encode()) for name in ("Source", "DetailType", "Detail"))


class EventBus:
    """Change events on the default bus, each put within ``seconds`` or counted as failed."""

    def __init__(
        self,
        client: Any,
        source: str,
        *,
        seconds: float,
        count: Count,
        warn: Warn,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client, self.source, self.seconds = client, source, seconds
        self.count, self.warn, self.sleep, self.monotonic = count, warn, sleep, monotonic

    def publish(self, *events: Event) -> list[Event]:
        """Put ``events``; the ones not delivered in time (counted, logged) are returned."""
        if not events:
            return []
        deadline = self.monotonic() + self.seconds
        waiting: list[tuple[Event, dict[str, Any]]] = []
        lost: list[Event] = []
        for event in events:
            entry = self.entry(event)
            if entry_size(entry) >= MAX_ENTRY_BYTES:
                lost.append(event)  # EventBridge would refuse it every time
                self.warn("change event too large to send", {"dataset": event.dataset, "kind": event.kind.name})
            else:
                waiting.append((event, entry))
        pause, error = FIRST_PAUSE, ""
        while waiting:
            waiting, error = self._put(waiting, deadline)
            # A try starts only if its first call ends before the deadline, however long it takes (half the time)
            if not waiting or self.monotonic() + pause + self.seconds / 2 > deadline:
                break
            self.sleep(pause)
            pause *= 2
        lost += [event for event, _ in waiting]
        delivered = len(events) - len(lost)
        if delivered:
            self.count(PUT_METRIC, delivered)
        if lost:
            self.count(FAILED_METRIC, len(lost))
            kinds = sorted({event.kind.name for event in lost})
            self.warn("change events not delivered", {"events": len(lost), "kinds": kinds, "error": error})
        return lost

    def entry(self, event: Event) -> dict[str, Any]:
        return {
            "Source": self.source,
            "DetailType": event.kind.detail_type,
            "Detail": json.dumps(event.detail, separators=(",", ":"), default=str),
        }

    def _put(
        self, waiting: list[tuple[Event, dict[str, Any]]], deadline: float
    ) -> tuple[list[tuple[Event, dict[str, Any]]], str]:
        """One try of every waiting entry, ten a call, no call after the first started that could end past
        ``deadline`` (those entries fail); what failed, and the last error seen."""
        failed: list[tuple[Event, dict[str, Any]]] = []
        error = ""
        for start in range(0, len(waiting), BATCH):
            batch = waiting[start : start + BATCH]
            if start and self.monotonic() + self.seconds / 2 > deadline:
                failed += waiting[start:]
                error = error or "no time left to send them"
                break
            try:
                answer = self.client.put_events(Entries=[entry for _, entry in batch])
            except (BotoCoreError, ClientError) as refused:
                failed += batch
                error = f"{type(refused).__name__}: {refused}"
                continue
            if not answer.get("FailedEntryCount"):
                continue
            for sent, result in zip(batch, answer.get("Entries", []), strict=False):
                if result.get("ErrorCode"):
                    failed.append(sent)
                    error = f"{result['ErrorCode']}: {result.get('ErrorMessage', '')}"
        return failed, error


def change_events(
    enabled: bool, source: str, seconds: float, *, count: Count, warn: Warn, client: Any = None
) -> ChangeEvents:
    """The functions' change events: on the default bus when ``enabled`` (``CHANGE_EVENTS``), else none."""
    if not enabled:
        return NoEvents()
    return EventBus(client or make_events_client(seconds), source, seconds=seconds, count=count, warn=warn)


def for_telemetry(telemetry: Any) -> tuple[Count, Warn]:
    """What an ``EventBus`` counts and logs with, from a function's Powertools telemetry (its metrics and logger)."""
    from aws_lambda_powertools.metrics import MetricUnit

    def count(name: str, value: int) -> None:
        telemetry.metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)

    def warn(message: str, extra: dict[str, Any]) -> None:
        telemetry.logger.warning(message, extra=extra)

    return count, warn
