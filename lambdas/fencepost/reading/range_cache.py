"""The range cache: stretches of addresses already answered, so a later address inside one costs no Query.

Every answer holds the whole stretch in which it is true: a found piece (``match``) or, with gaps, the gap around a
NOT_FOUND address. One Query therefore answers every address of its stretch, and a container keeps the stretches
it has answered, per dataset version and family: a lookup inside one is answered from memory. Entries are keyed by
version, and a version's pieces never change, so a switch to a new version starts cold and can never serve old
data; the old version's entries are the least recently used and go first.

Bounded in bytes (``RANGE_CACHE_BYTES``): least recently used first out, each entry counted at an upper estimate of
what it holds (measured with tracemalloc). Thread-safe: batch lookups run on a pool.
"""

from __future__ import annotations

import threading
from bisect import bisect_right, insort
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

T = TypeVar("T")

# One entry: the LRU node and its key tuple, the stretch's bounds in the sorted lists, and the cached value's own
# objects (a Hit: its slots, two address texts, the values list). Measured with tracemalloc (CPython 3.11, 20,000
# answers from the first 60,000 rows of each shared file, three metadata columns): 594 bytes an IPv4 entry and 625
# an IPv6 one, metadata included, which ``entry_bytes`` estimates at 851 and 981. 128 MiB holds ~150,000 entries.
ENTRY_BYTES: Final = 800
STRING_BYTES: Final = 80  # a str object's header (up to 80 bytes for non-ASCII text), beyond its characters


@dataclass(slots=True)
class _Stretches(Generic[T]):
    """The cached stretches of one version and family, disjoint, sorted by start."""

    starts: list[int] = field(default_factory=list)
    ends: dict[int, int] = field(default_factory=dict)
    values: dict[int, T] = field(default_factory=dict)

    def find(self, address: int) -> int | None:
        index = bisect_right(self.starts, address) - 1
        if index < 0:
            return None
        start = self.starts[index]
        return start if address <= self.ends[start] else None

    def free(self, start: int, end: int) -> bool:
        """Whether ``[start, end]`` meets no cached stretch."""
        index = bisect_right(self.starts, end) - 1
        return index < 0 or self.ends[self.starts[index]] < start

    def add(self, start: int, end: int, value: T) -> None:
        insort(self.starts, start)
        self.ends[start] = end
        self.values[start] = value

    def remove(self, start: int) -> None:
        index = bisect_right(self.starts, start) - 1
        del self.starts[index]
        del self.ends[start]
        del self.values[start]


Key = tuple[str, int, int]  # dataset, version, family


class RangeCache(Generic[T]):
    """Values that hold for a whole stretch of addresses of a version; at most ``max_bytes`` of them (0: none)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._by_version: dict[Key, _Stretches[T]] = {}
        self._order: OrderedDict[tuple[Key, int], int] = OrderedDict()  # (key, start) -> size, oldest first
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Key, address: int) -> T | None:
        """The value of the cached stretch of ``key`` that holds ``address``; None when none does."""
        if not self.max_bytes:
            return None
        with self._lock:
            stretches = self._by_version.get(key)
            start = None if stretches is None else stretches.find(address)
            if stretches is None or start is None:
                self.misses += 1
                return None
            self.hits += 1
            self._order.move_to_end((key, start))
            return stretches.values[start]

    def put(self, key: Key, start: int, end: int, value: T, size: int) -> None:
        """Keep ``value`` for every address of ``[start, end]`` (nothing if a cached stretch meets it: two threads
        answered the same stretch, and one is enough), evicting the least recently used beyond the budget."""
        if size > self.max_bytes:
            return
        with self._lock:
            stretches = self._by_version.setdefault(key, _Stretches())
            if not stretches.free(start, end):
                return
            stretches.add(start, end, value)
            self._order[(key, start)] = size
            self._bytes += size
            while self._bytes > self.max_bytes:
                (old_key, old_start), old_size = self._order.popitem(last=False)
                self._bytes -= old_size
                old = self._by_version[old_key]
                old.remove(old_start)
                if not old.starts:
                    del self._by_version[old_key]

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._order)


def entry_bytes(*texts: str) -> int:
    """The estimated bytes of one entry whose value holds ``texts`` (an answer's metadata)."""
    return ENTRY_BYTES + sum(STRING_BYTES + len(text.encode()) for text in texts)
