"""The lookup's caches on an in-memory store that counts every call made to it, for the tests of what the caches
save and of their bounds: the store, a clock the test moves, a lookup whose every answer is a Query, and a warm
lookup checked."""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Any

from fencepost.core.space.addresses import V4, V6, format_address
from fencepost.core.storage.items import Hit
from fencepost.core.storage.keys import Directory, Probe
from fencepost.errors import DependencyUnavailable
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.lookup import Lookup
from fencepost.settings import CacheLimits

END = 100  # the one stored piece covers IPv4 addresses 0 to END


@dataclass
class FakeStore:
    """An in-memory store holding one IPv4 piece, ``0.0.0.0`` to ``0.0.0.100``, that counts every call the lookup
    makes (from any thread). A dataset named in ``partitions`` also has that many (empty) IPv6 partitions in its
    directory, to make its version large."""

    live: dict[str, int | None]
    calls: list[str] = field(default_factory=list)
    fail: bool = False
    partitions: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get_live(self, name: str) -> LivePointer | None:
        with self.lock:
            self.calls.append("get_live")
        version = self.live.get(name)
        return None if version is None else LivePointer(name, version)

    def get_version(self, dataset: str, version: int) -> VersionInfo | None:
        with self.lock:
            self.calls.append("get_version")
        count = self.partitions.get(dataset, 0)
        v6 = Directory(V6, tuple(range(count)), (0,) * count)
        return VersionInfo(dataset, version, ("v",), {V4: Directory.of_starts(V4, [0]), V6: v6})

    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None:
        with self.lock:
            self.calls.append("query")
        if self.fail:
            raise DependencyUnavailable("DynamoDB query failed (ThrottlingException); retry shortly")
        values = [f"{dataset}@{version}"]
        return Hit(0, END, values, format_address(V4, 0), format_address(V4, END))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def counting_lookup(store: Any, ttl: float, clock: Any = None, *, limits: CacheLimits | None = None) -> Lookup:
    """A lookup whose every answer is a Query (the range cache off: ``tests/unit/reading/test_range_cache.py`` tests
    it), so that these tests count what the live-pointer and version caches save."""
    limits = dataclasses.replace(limits or CacheLimits(), range_bytes=0)
    return Lookup(store, ttl, clock, limits=limits) if clock is not None else Lookup(store, ttl, limits=limits)


def warm_lookup(lookup: Lookup, dataset: str) -> None:
    answer = lookup.find(lookup.live(dataset), V4, 5)
    assert answer is not None
    assert answer.body()["data"] == {"v": f"{dataset}@1"}
