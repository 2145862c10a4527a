"""The change events of a dataset, declared once: each kind's ``detail-type`` (what a rule matches), what it means,
and a pure builder of its detail (plain JSON: the dataset, the versions, the diff summary, the gate's figures, the
error). ``docs/events.schema.json`` describes every detail; the tests validate each emitted one against it.

Every detail names its ``dataset`` and its ``kind`` (the kind's short name, stable for code that reads the detail
alone). Free text (a reason, an error) is cut at ``MAX_TEXT`` characters, so that an event stays far below
EventBridge's 256 KB an entry whatever a failure says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

MAX_TEXT: Final = 2000  # characters of a reason or an error kept in a detail


@dataclass(frozen=True, slots=True)
class Kind:
    name: str  # the detail's ``kind``
    detail_type: str  # the event's ``detail-type``
    meaning: str


VERSION_LIVE: Final = Kind(
    "version_live", "Dataset version live", "a build went live (a dated build, placed in the history, never is)"
)
BUILD_FAILED: Final = Kind("build_failed", "Dataset build failed", "a build failed; the live version keeps answering")
BUILD_REFUSED: Final = Kind(
    "build_refused", "Dataset build refused", "a gate refused a build, with the gate, its limit and the figures"
)
ROLLED_BACK: Final = Kind("rolled_back", "Dataset rolled back", "a person rolled the dataset back (or forward again)")
SOURCE_FAILING: Final = Kind(
    "source_failing", "Dataset source failing", "a folder's source failed checks in a row (announced once a streak)"
)
DATASET_STALE: Final = Kind(
    "dataset_stale", "Dataset stale", "the live version is older than its max age (announced once a version)"
)
SINK_FAILED: Final = Kind(
    "sink_failed", "Dataset sink failed", "a copy of a version to a sink (a WAF IP set, a prefix list) failed"
)

KINDS: Final[tuple[Kind, ...]] = (
    VERSION_LIVE,
    BUILD_FAILED,
    BUILD_REFUSED,
    ROLLED_BACK,
    SOURCE_FAILING,
    DATASET_STALE,
    SINK_FAILED,
)


@dataclass(frozen=True, slots=True)
class Event:
    kind: Kind
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dataset(self) -> str:
        return str(self.detail["dataset"])


class ChangeEvents(Protocol):
    """Where change events go (``fencepost.aws.events`` on AWS): each call returns the events it could not deliver,
    and never raises; delivery never holds up what announced them beyond its own bounded time."""

    def publish(self, *events: Event) -> list[Event]: ...


class NoEvents:
    """Change events switched off (``CHANGE_EVENTS=false``): nothing is sent, nothing is lost."""

    def publish(self, *events: Event) -> list[Event]:  # noqa: ARG002 - nothing to send them to
        return []


def _text(value: str) -> str:
    return value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 3] + "..."


def _event(kind: Kind, dataset: str, **detail: Any) -> Event:
    return Event(kind, {"dataset": dataset, "kind": kind.name, **detail})


def version_live(
    dataset: str, version: int, *, previous: int | None, ranges: int, items: int, diff: Mapping[str, Any] | None
) -> Event:
    """``version`` went live in place of ``previous`` (None: the first); ``diff``: its diff summary against it."""
    return _event(VERSION_LIVE, dataset, version=version, previous=previous, ranges=ranges, items=items, diff=diff)


def build_failed(dataset: str, build: int | None, reason: str, *, live: int | None = None) -> Event:
    """Build ``build`` failed for ``reason``; ``live`` keeps answering."""
    return _event(BUILD_FAILED, dataset, build=build, live=live, reason=_text(reason))


def build_refused(
    dataset: str,
    build: int,
    *,
    gate: str,
    limit: Any,
    reason: str,
    live: int | None,
    diff: Mapping[str, Any],
) -> Event:
    """A gate (its folder setting, ``limit`` its value) refused ``build``; ``diff``: the figures it decided on."""
    return _event(
        BUILD_REFUSED, dataset, build=build, live=live, gate=gate, limit=limit, reason=_text(reason), diff=diff
    )


def rolled_back(dataset: str, version: int, *, left: int | None, held: bool) -> Event:
    """``version`` is live again in place of ``left`` (which is the rollback target now); ``held``: it stays live
    until the folder changes."""
    return _event(ROLLED_BACK, dataset, version=version, previous=left, held=held)


def source_failing(dataset: str, *, outcome: str, reason: str, failures: int) -> Event:
    """The folder's source failed ``failures`` checks or more in a row, the last with ``outcome`` and ``reason``."""
    return _event(SOURCE_FAILING, dataset, outcome=outcome, reason=_text(reason), failures=failures)


def dataset_stale(dataset: str, version: int, *, loaded_at: str, age_seconds: int, max_age_seconds: int) -> Event:
    """The live ``version`` (built at ``loaded_at``) is older than the dataset's max age."""
    return _event(
        DATASET_STALE,
        dataset,
        version=version,
        loaded_at=loaded_at,
        age_seconds=age_seconds,
        max_age_seconds=max_age_seconds,
    )


def sink_failed(dataset: str, version: int | None, *, sink: str, target: str, error: str) -> Event:
    """Copying ``version`` to the sink ``sink`` (its kind, e.g. ``waf_ip_set``) at ``target`` failed with ``error``."""
    return _event(SINK_FAILED, dataset, version=version, sink=sink, target=target, error=_text(error))
