"""Which version answers a lookup in the past: ``as_of=<instant>`` or ``version=<N>``
(``fencepost.core.versions.history``).

Each dataset's history is read once and cached for the lookup cache's TTL, like its live pointer: resolving an
instant is then a search in memory, and the lookup itself is the one Query of any lookup (its version's header
and range cache are the live path's, keyed by version already). The result is a ``LivePointer`` whose
``live_since`` is the start of the period that answers, so conditional requests work as they do live.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from fencepost.core.versions.history import Event, InstantError, Timeline, format_instant, parse_instant
from fencepost.errors import (
    CursorExpired,
    InvalidRequest,
    NoVersionAt,
    UnknownDataset,
    VersionGone,
    check_dataset_name,
)
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.caches import LruCache
from fencepost.reading.lookup import Lookup


@dataclass(frozen=True, slots=True)
class Past:
    """A lookup in the past: at an instant (``as_of``, kept as the answer shows it) or of one version."""

    instant: float | None = None
    shown: str | None = None  # the instant in RFC 3339, UTC, as answers carry it under ``as_of``
    version: int | None = None


def parse_past(as_of: object, version: object, *, several: bool, now: float) -> Past | None:
    """``as_of=<RFC 3339 instant>`` or ``version=<N>`` (not both; a version only with one dataset); None for
    neither: the live version answers."""
    if as_of is None and version is None:
        return None
    if as_of is not None and version is not None:
        raise InvalidRequest("give as_of (an instant) or version (a number), not both")
    if version is not None:
        if several:
            raise InvalidRequest("version names one dataset's version: use as_of with several datasets")
        text = str(version) if isinstance(version, int) and not isinstance(version, bool) else version
        if not isinstance(text, str) or not (text.isascii() and text.isdigit()) or len(text) > 12 or int(text) < 1:
            raise InvalidRequest(f"version is a whole number, 1 or more, not {str(version)[:40]!r}")
        return Past(version=int(text))
    if not isinstance(as_of, str):
        raise InvalidRequest("as_of is an RFC 3339 date-time such as 2026-11-01T12:00:00Z")
    try:
        instant = parse_instant(as_of, now)
    except InstantError as error:
        raise InvalidRequest(str(error)) from None
    return Past(instant, format_instant(instant))


class TimelineStore(Protocol):
    def get_timeline(self, dataset: str) -> Timeline: ...


@dataclass(frozen=True, slots=True)
class _Cached:
    expires: float
    timeline: Timeline


class History:
    def __init__(
        self,
        store: TimelineStore,
        lookup: Lookup,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
        *,
        entries: int = 1024,
    ) -> None:
        self._store, self.lookup, self._ttl, self._clock = store, lookup, ttl, clock
        self._timelines: LruCache[str, _Cached] = LruCache(entries)

    def timeline(self, dataset: str) -> Timeline:
        """The dataset's history (cached ``ttl`` seconds); a live version it does not hold (loaded before histories
        were kept: the history then has no event, or only dated folders') counts from its ``live_since``."""
        now = self._clock()
        cached = self._timelines.get(dataset)
        if cached is None or cached.expires <= now:
            check_dataset_name(dataset)
            timeline = self._store.get_timeline(dataset)
            if timeline.first_live() is None:
                timeline = self._with_live(dataset, timeline)
            cached = _Cached(now + self._ttl, timeline)
            self._timelines.put(dataset, cached)
        return cached.timeline

    def _with_live(self, dataset: str, timeline: Timeline) -> Timeline:
        try:
            pointer = self.lookup.live_pointer(dataset)
        except UnknownDataset:
            return timeline
        return Timeline([*timeline.events, Event(pointer.live_since or 0.0, pointer.version)])

    def at(self, dataset: str, instant: float) -> LivePointer:
        """The version that was live at ``instant`` (from its switch instant inclusive), or ``NoVersionAt``."""
        timeline = self.timeline(dataset)
        event = timeline.at(instant)
        if event is None or event.version is None or event.gone:
            raise NoVersionAt(_why(dataset, instant, timeline, event))
        return LivePointer(dataset, event.version, event.at)

    def version(self, dataset: str, version: int) -> LivePointer:
        """``version`` if it was ever live and is still kept: ``NoVersionAt`` if never, ``VersionGone`` if deleted."""
        timeline = self.timeline(dataset)
        events = timeline.of(version)
        if not events:
            raise NoVersionAt(f"version {version} of dataset {dataset!r} was never live{_kept(timeline)}")
        if any(event.gone for event in events):
            raise VersionGone(f"version {version} of dataset {dataset!r} is no longer kept{_kept(timeline)}")
        return LivePointer(dataset, version, events[-1].at)

    def kept(self, dataset: str, version: int) -> bool:
        """Whether ``version`` was live once and is still kept (its ``retain_days`` not past)."""
        return self.timeline(dataset).kept(version)

    def pointer(self, dataset: str, past: Past | None) -> LivePointer:
        """The live pointer, or (``past``) that of the version asked for."""
        if past is None:
            return self.lookup.live_pointer(dataset)
        if past.instant is not None:
            return self.at(dataset, past.instant)
        assert past.version is not None
        return self.version(dataset, past.version)

    def listed(self, dataset: str, pinned: int | None, past: Past | None = None) -> VersionInfo:
        """The version a listing reads: the one its cursor pinned while it is kept (``CursorExpired`` after), else
        the live one or the one ``past`` asks for."""
        if pinned is None:
            return self.lookup.version_of(self.pointer(dataset, past))
        try:
            live = self.lookup.live_pointer(dataset)
        except UnknownDataset:
            live = None
        try:
            pointer = live if live is not None and live.version == pinned else self.version(dataset, pinned)
            return self.lookup.version_of(pointer)
        except (NoVersionAt, VersionGone, UnknownDataset):
            raise CursorExpired(f"version {pinned} of dataset {dataset!r} is no longer kept: start again") from None


def _kept(timeline: Timeline) -> str:
    oldest = timeline.oldest_kept()
    return "" if oldest is None else f"; the oldest instant kept is {format_instant(oldest)}"


def _why(dataset: str, instant: float, timeline: Timeline, event: Event | None) -> str:
    when = format_instant(instant)
    if not len(timeline):
        return f"dataset {dataset!r} has no history: no version of it was ever live"
    if event is None:
        first = format_instant(timeline.events[0].at)
        return f"dataset {dataset!r} had no version at {when}: its first went live at {first}"
    if event.version is None:
        return f"dataset {dataset!r} served nothing at {when} (its folder was emptied){_kept(timeline)}"
    return f"version {event.version} of dataset {dataset!r}, live at {when}, is no longer kept{_kept(timeline)}"
