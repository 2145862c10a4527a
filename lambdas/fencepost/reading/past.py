"""Which version answers a lookup in the past: ``as_of=<instant>`` or ``version=<N>`` (``fencepost.core.history``).

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

from fencepost.core.history import Event, Timeline, format_instant
from fencepost.errors import NoVersionAt, UnknownDataset, VersionGone, check_dataset_name
from fencepost.model import LivePointer
from fencepost.reading.caches import LruCache
from fencepost.reading.lookup import Lookup


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
        self._store, self._lookup, self._ttl, self._clock = store, lookup, ttl, clock
        self._timelines: LruCache[str, _Cached] = LruCache(entries)

    def timeline(self, dataset: str) -> Timeline:
        """The dataset's history (cached ``ttl`` seconds); a live version it does not hold yet (loaded before
        histories were kept) counts from its ``live_since``."""
        now = self._clock()
        cached = self._timelines.get(dataset)
        if cached is None or cached.expires <= now:
            check_dataset_name(dataset)
            timeline = self._store.get_timeline(dataset)
            if not len(timeline):
                timeline = self._from_live(dataset)
            cached = _Cached(now + self._ttl, timeline)
            self._timelines.put(dataset, cached)
        return cached.timeline

    def _from_live(self, dataset: str) -> Timeline:
        try:
            pointer = self._lookup.live_pointer(dataset)
        except UnknownDataset:
            return Timeline([])
        return Timeline([Event(pointer.live_since or 0.0, pointer.version)])

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
        events = [event for event in timeline.events if event.version == version]
        if not events:
            raise NoVersionAt(f"version {version} of dataset {dataset!r} was never live{_kept(timeline)}")
        if any(event.gone for event in events):
            raise VersionGone(f"version {version} of dataset {dataset!r} is no longer kept{_kept(timeline)}")
        return LivePointer(dataset, version, events[-1].at)


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
