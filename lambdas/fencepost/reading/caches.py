"""Bounded, thread-safe caches for the read path: least recently used first out, by entries and by bytes.

A lookup container lives for hours and meets whatever dataset names its callers send, so nothing it keeps may grow
with the traffic: every cache here has a fixed number of entries, and the version cache also a byte budget (a
version's directory can be large). Batch lookups run on a thread pool, and the local HTTP front serves requests on
threads, so every operation takes the cache's lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

from fencepost.core.space.addresses import V4, V6
from fencepost.core.versions.value_index import Directory
from fencepost.model import VersionInfo

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """At most ``max_entries`` values whose sizes add up to at most ``max_bytes``; the least recently used go first."""

    def __init__(self, max_entries: int, max_bytes: int | None = None) -> None:
        if max_entries < 1:
            raise ValueError("a cache holds at least one entry")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: K, value: V, size: int = 0) -> bool:
        """Keep ``value`` (evicting the least recently used as needed); False when it alone is over the byte budget."""
        with self._lock:
            self._remove(key)
            if self.max_bytes is not None and size > self.max_bytes:
                return False
            self._entries[key] = (value, size)
            self._bytes += size
            while len(self._entries) > self.max_entries or (
                self.max_bytes is not None and self._bytes > self.max_bytes
            ):
                _, (_, evicted) = self._entries.popitem(last=False)
                self._bytes -= evicted
            return True

    def pop(self, key: K) -> None:
        with self._lock:
            self._remove(key)

    def _remove(self, key: K) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._bytes -= entry[1]

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    @property
    def bytes(self) -> int:
        return self._bytes


# Measured with tracemalloc on directories read from their pages (CPython 3.11): a directory entry takes two tuple
# slots and two ints, 84 bytes for IPv6 (offsets up to 108 bits) and at most 72 for IPv4; the shared files' whole
# versions take 4 KB (IPv4, 221 partitions) and 43 KB (IPv6, 682 partitions); a million IPv6 partitions, 84 MB.
_ENTRY_BYTES = {V4: 72, V6: 84}
_VERSION_BYTES = 1024  # the VersionInfo, its tuples and dict
_COLUMN_BYTES = 64  # a str object's header and its slot in the tuple


def version_bytes(info: VersionInfo) -> int:
    """An upper estimate of the memory ``info`` takes once read: its directories and its column names."""
    columns = sum(_COLUMN_BYTES + len(column.encode()) for column in info.columns)
    entries = sum(len(directory.partitions) * _ENTRY_BYTES[family] for family, directory in info.directories.items())
    return _VERSION_BYTES + columns + entries


# Measured the same way on directories parsed from their file (100,000 values of 23 characters, 300 to 3,000 members):
# 208 to 212 bytes a value, about 4.4 times the file's text.
_VALUE_BYTES = 185  # a ValueStats, its four ints and its slot, without the value's own characters
_MEMBER_BYTES = 120  # an offset and a (family, start) head


def index_bytes(directory: Directory) -> int:
    """An upper estimate of the memory a value index's directory (``core.versions.value_index``) takes once read."""
    values = sum(_VALUE_BYTES + len(stats.value.encode()) for stats in directory.values)
    return _VERSION_BYTES + values + len(directory.offsets) * _MEMBER_BYTES
