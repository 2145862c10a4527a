"""The read path: which version of a dataset is live (cached briefly, within bounds), and the one Query per address."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol

from fencepost.caches import CacheLimits, LruCache, version_bytes
from fencepost.core.addresses import format_address
from fencepost.core.items import Hit
from fencepost.core.keys import DATASET_NAME_RULE, Probe, is_dataset_name
from fencepost.core.networks import cidrs, network
from fencepost.core.reserved import reserved_field
from fencepost.errors import InvalidRequest, UnknownDataset
from fencepost.model import LivePointer, VersionInfo


class LookupStore(Protocol):
    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None: ...
    def get_live(self, name: str) -> LivePointer | None: ...
    def get_version(self, dataset: str, version: int) -> VersionInfo | None: ...


@dataclass(frozen=True, slots=True)
class Answer:
    """A found range, ready to serialize."""

    family: int
    address: int
    dataset: str
    hit: Hit
    info: VersionInfo

    def body(self) -> dict[str, Any]:
        hit = self.hit
        match = {
            "start": hit.start_text,
            "end": hit.end_text,
            "network": network(self.family, hit.start, hit.end, self.address),
        }
        start, end = hit.range_texts or (hit.start_text, hit.end_text)
        span = {"start": start, "end": end, "cidrs": cidrs(self.family, hit.range_start, hit.range_end)}
        return {
            "ip": format_address(self.family, self.address),
            "dataset": self.dataset,
            "version": self.info.version,
            "range": span,
            "match": match,
            "data": dict(zip(self.info.columns, hit.values, strict=False)),
            **reserved_field(self.family, self.address),
        }


@dataclass(frozen=True, slots=True)
class _Live:
    expires: float
    pointer: LivePointer | None  # None: no such dataset, or nothing served


class Lookup:
    """Answers addresses from the live version of a dataset.

    The live pointer of each dataset is cached for ``ttl`` seconds; unknown names for ``limits.negative_ttl`` (at
    most ``ttl``), in a cache of their own, so a stream of bad names neither reaches the table every time nor
    pushes known datasets out. A version's columns and directory never change, so they are kept until the least
    recently used version makes room, within ``limits``. A warm lookup therefore costs exactly one Query.
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
            if not is_dataset_name(dataset):
                raise InvalidRequest(f"invalid dataset name {dataset[:80]!r}: {DATASET_NAME_RULE}")
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
        return self._version(pointer.dataset, pointer.version)

    def cache_sizes(self) -> dict[str, int]:
        """How much is cached: live pointers, unknown names, versions and the versions' estimated bytes."""
        return {
            "live": len(self._live),
            "unknown": len(self._unknown),
            "versions": len(self._versions),
            "version_bytes": self._versions.bytes,
        }

    def _version(self, dataset: str, version: int) -> VersionInfo:
        key = (dataset, version)
        info = self._versions.get(key)
        if info is None:
            info = self._store.get_version(dataset, version)
            if info is None:
                raise UnknownDataset(f"version {version} of dataset {dataset!r} is not readable")
            # A version over the whole byte budget is answered, read again for each lookup, never kept.
            self._versions.put(key, info, version_bytes(info))
        return info

    def find(self, info: VersionInfo, family: int, address: int) -> Answer | None:
        """The one-Query fence-post lookup: the last piece at or below the address, if it reaches it."""
        probe = info.directories[family].probe(address)
        if probe is None:
            return None
        hit = self._store.find(info.dataset, info.version, probe)
        if hit is None or hit.end < address:
            return None
        return Answer(family, address, info.dataset, hit, info)

    def find_many(
        self, info: VersionInfo, addresses: Sequence[tuple[int, int]], pool: Executor | None = None
    ) -> list[Answer | None]:
        """The answer for each ``(family, address)``, in order: one Query per distinct address.

        The Queries run on ``pool`` concurrently (without one, one after another); the first failure is raised.
        """
        distinct = list(dict.fromkeys(addresses))
        if pool is None:
            answers = [self.find(info, family, address) for family, address in distinct]
        else:
            answers = list(pool.map(lambda key: self.find(info, *key), distinct))
        found = dict(zip(distinct, answers, strict=True))
        return [found[key] for key in addresses]
