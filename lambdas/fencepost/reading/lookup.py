"""The read path: which version of a dataset is live (cached briefly, within bounds), and the one Query per address."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Protocol

from fencepost.core.space.addresses import V4, V6, format_address
from fencepost.core.space.aliases import Alias, alias_of, carried, widened
from fencepost.core.space.gaps import Stretch, gap_after, gap_below
from fencepost.core.storage.items import Hit
from fencepost.core.storage.keys import Probe
from fencepost.errors import UnknownDataset, check_dataset_name
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.answers import Answer, Miss
from fencepost.reading.caches import LruCache, version_bytes
from fencepost.reading.range_cache import ENTRY_BYTES, RangeCache, entry_bytes
from fencepost.settings import CacheLimits


class LookupStore(Protocol):
    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None: ...
    def get_live(self, name: str) -> LivePointer | None: ...
    def get_version(self, dataset: str, version: int) -> VersionInfo | None: ...


def _under(alias: Alias, address: int, outcome: Answer | Miss) -> Answer | Miss:
    """An answer for the IPv4 address an aliased IPv6 address carries, in IPv6 terms: every stretch widened to
    the IPv6 addresses under the alias that carry an address of it."""
    if isinstance(outcome, Miss):
        return Miss(V6, address, outcome.info, None if outcome.gap is None else widened(alias, outcome.gap))
    hit = outcome.hit
    start, end = widened(alias, (hit.start, hit.end))
    span = widened(alias, (hit.range_start, hit.range_end))
    texts = (format_address(V6, span[0]), format_address(V6, span[1])) if hit.range_texts else None
    gap_end = None if hit.gap_end is None else widened(alias, (hit.gap_end, hit.gap_end))[1]
    shown = Hit(start, end, hit.values, format_address(V6, start), format_address(V6, end), texts, gap_end)
    return Answer(V6, address, outcome.dataset, shown, outcome.info)


@dataclass(frozen=True, slots=True)
class _Live:
    expires: float
    pointer: LivePointer | None  # None: no such dataset, or nothing served


class Lookup:
    """Answers addresses from the live version of a dataset.

    The live pointer of each dataset is cached for ``ttl`` seconds; unknown names for ``limits.negative_ttl`` (at
    most ``ttl``), in a cache of their own, so a stream of bad names neither reaches the table every time nor
    pushes known datasets out. A version's columns and directory never change, so they are kept until the least
    recently used version makes room, within ``limits``. A warm lookup therefore costs at most one Query, and none
    for an address inside a stretch (a piece, or a gap) already answered in this version
    (``fencepost.reading.range_cache``).
    """

    def __init__(
        self,
        store: LookupStore,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
        *,
        limits: CacheLimits | None = None,
    ) -> None:
        self._store = store
        self._ttl = ttl
        limits = limits or CacheLimits()
        self._negative_ttl = min(ttl, limits.negative_ttl)
        self._clock = clock
        # Only valid names are ever cached (checked before the store is asked).
        self._live: LruCache[str, _Live] = LruCache(limits.live_entries)
        self._unknown: LruCache[str, _Live] = LruCache(limits.live_entries)
        self._versions: LruCache[tuple[str, int], VersionInfo] = LruCache(limits.version_entries, limits.version_bytes)
        self.ranges: RangeCache[Hit | Stretch] = RangeCache(limits.range_bytes)

    def live(self, dataset: str) -> VersionInfo:
        """The live version of ``dataset``, or ``UnknownDataset``."""
        return self.version_of(self.live_pointer(dataset))

    def live_pointer(self, dataset: str) -> LivePointer:
        """The live pointer of ``dataset`` (its version, and since when), cached as ``live``; or ``UnknownDataset``.

        Reads no version and no range: what a conditional lookup needs to answer ``304``.
        """
        now = self._clock()
        cached = self._live.get(dataset) or self._unknown.get(dataset)
        if cached is None or cached.expires <= now:
            check_dataset_name(dataset)
            pointer = self._store.get_live(dataset)
            if pointer is None:
                cached = _Live(now + self._negative_ttl, None)
                self._live.pop(dataset)
                self._unknown.put(dataset, cached)
            else:
                cached = _Live(now + self._ttl, pointer)
                self._unknown.pop(dataset)
                self._live.put(dataset, cached)
        if cached.pointer is None:
            raise UnknownDataset(f"no dataset named {dataset!r} is loaded")
        return cached.pointer

    def version_of(self, pointer: LivePointer) -> VersionInfo:
        """The version a live pointer names (cached), or ``UnknownDataset``."""
        return self.version(pointer.dataset, pointer.version)

    def cache_sizes(self) -> dict[str, int]:
        """How much is cached: live pointers, unknown names, versions and the versions' estimated bytes."""
        return {
            "live": len(self._live),
            "unknown": len(self._unknown),
            "versions": len(self._versions),
            "version_bytes": self._versions.bytes,
            "ranges": len(self.ranges),
            "range_bytes": self.ranges.bytes,
        }

    def version(self, dataset: str, version: int) -> VersionInfo:
        """One version of ``dataset`` (cached), or ``UnknownDataset`` when it cannot be read."""
        key = (dataset, version)
        info = self._versions.get(key)
        if info is None:
            info = self._store.get_version(dataset, version)
            if info is None:
                raise UnknownDataset(f"version {version} of dataset {dataset!r} is not readable")
            # A version over the whole byte budget is answered, read again for each lookup, never kept.
            self._versions.put(key, info, version_bytes(info))
        return info

    def answer(self, info: VersionInfo, family: int, address: int) -> Answer | Miss:
        """The one-Query fence-post lookup: the last piece at or below the address, if it reaches it; if not, the
        gap the address is in (from the piece below it, or below every piece from the directory). An IPv6 address
        under one of the version's aliases is answered from the IPv4 address it carries (``core.space.aliases``)."""
        if family == V6 and info.aliases:
            alias = alias_of(info.aliases, address)
            if alias is not None:
                return _under(alias, address, self._answer(info, V4, carried(alias, address)))
        return self._answer(info, family, address)

    def _answer(self, info: VersionInfo, family: int, address: int) -> Answer | Miss:
        key = (info.dataset, info.version, family)
        cached = self.ranges.get(key, address)
        if cached is None:
            return self._queried(key, info, family, address)
        if isinstance(cached, Hit):
            return Answer(family, address, info.dataset, cached, info)
        return Miss(family, address, info, cached)

    def _queried(self, key: tuple[str, int, int], info: VersionInfo, family: int, address: int) -> Answer | Miss:
        """The answer from the one Query (none below the family's first piece), kept for its whole stretch."""
        directory = info.directories[family]
        probe = directory.probe(address)
        if probe is None:  # below the family's first piece: answered from the directory, no Query to save
            below = gap_below(family, address, directory.first_start, info.aliases) if info.gaps else None
            return Miss(family, address, info, below)
        hit = self._store.find(info.dataset, info.version, probe)
        if hit is None:  # the directory names a partition with no piece: not a version the loader wrote
            return Miss(family, address, info, None)
        if hit.end < address:
            gap_end = hit.gap_end if info.gaps else None
            if gap_end is None or gap_end < address:  # a version built before gaps were stored
                return Miss(family, address, info, None)
            gap = gap_after(family, address, hit.end, gap_end, info.aliases)
            self.ranges.put(key, gap[0], gap[1], gap, ENTRY_BYTES)
            return Miss(family, address, info, gap)
        self.ranges.put(key, hit.start, hit.end, hit, entry_bytes(*hit.values))
        return Answer(family, address, info.dataset, hit, info)

    def find(self, info: VersionInfo, family: int, address: int) -> Answer | None:
        """The stored piece that holds the address, or None: the one Query, with no alias applied."""
        outcome = self._answer(info, family, address)
        return outcome if isinstance(outcome, Answer) else None

    def answer_many(
        self, asks: Sequence[tuple[VersionInfo, int, int]], pool: Executor | None = None
    ) -> list[Answer | Miss]:
        """The answer for each ``(version, family, address)``, in order: one Query per distinct ask.

        The Queries run on ``pool`` concurrently (without one, one after another); the first failure is raised.
        """
        distinct = {
            (info.dataset, info.version, family, address): (info, family, address) for info, family, address in asks
        }
        todo = list(distinct.values())
        if pool is None:
            answers = [self.answer(*ask) for ask in todo]
        else:
            answers = list(pool.map(lambda ask: self.answer(*ask), todo))
        found = dict(zip(distinct, answers, strict=True))
        return [found[(info.dataset, info.version, family, address)] for info, family, address in asks]
