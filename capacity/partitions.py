"""A key space cut into partitions, each with what it served in the current second, and how partitions split.

Partitions are contiguous ranges of positions ``(hash, sort key)`` (``keys``); they only ever split, in two, never
merge ([docs-splits]). A split for heat cuts where the recent traffic is halved (the median of recent positions),
which can fall inside one partition key value's items; a split for throughput (provisioned raises, on-demand
growth) halves the hash range.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field

from capacity.placement import HASH_SPACE, LOWEST_SORT, Position

RECENT: int = 256  # positions kept per partition to find where a split for heat halves its traffic


@dataclass(slots=True)
class Partition:
    low: Position  # the first position it holds; it ends where the next partition starts
    read: float = 0.0  # units served this second
    write: float = 0.0
    read_throttled: float = 0.0  # units refused this second
    write_throttled: float = 0.0
    strong_reads: bool = False  # some read this second was strongly consistent (3,000 units, not 4,500)
    hot_seconds: int = 0  # consecutive seconds near its limits
    bytes: int = 0
    recent: deque[Position] = field(default_factory=lambda: deque(maxlen=RECENT))
    last_write: Position | None = None
    ascending: int = 0  # writes this hot streak that went past every earlier one (an ever-increasing sort key)
    writes: int = 0

    def active(self) -> bool:
        return bool(self.read or self.write or self.read_throttled or self.write_throttled)

    def reset_second(self) -> None:
        self.read = self.write = self.read_throttled = self.write_throttled = 0.0
        self.strong_reads = False

    def note_write(self, where: Position, size: int) -> None:
        self.recent.append(where)
        self.bytes += size
        self.writes += 1
        if self.last_write is None or where > self.last_write:
            self.ascending += 1
            self.last_write = where  # the highest written so far


class Keyspace:
    """The partitions of a table or of one of its indexes, in key order."""

    def __init__(self, count: int) -> None:
        count = max(1, count)
        self.partitions = [Partition((index * HASH_SPACE // count, LOWEST_SORT)) for index in range(count)]
        self._lows = [p.low for p in self.partitions]

    def __len__(self) -> int:
        return len(self.partitions)

    def find(self, where: Position) -> Partition:
        return self.partitions[bisect_right(self._lows, where) - 1]

    def index_of(self, partition: Partition) -> int:
        return bisect_right(self._lows, partition.low) - 1

    def high(self, index: int) -> Position:
        return self.partitions[index + 1].low if index + 1 < len(self.partitions) else (HASH_SPACE, LOWEST_SORT)

    def split(self, partition: Partition, *, by_traffic: bool) -> bool:
        """Split ``partition`` in two: where its recent traffic is halved, or halfway through its hash range.
        False when it cannot be split there (a single hot item; a range of one hash and no traffic)."""
        index = self.index_of(partition)
        low, high = partition.low, self.high(index)
        at: Position | None = None
        if by_traffic and partition.recent:
            ordered = sorted(partition.recent)
            middle = ordered[len(ordered) // 2]
            at = middle if low < middle < high else next((p for p in ordered if low < p < high), None)
        elif high[0] - low[0] >= 2:
            at = ((low[0] + high[0]) // 2, LOWEST_SORT)
        if at is None:
            return False
        twin = Partition(at, bytes=partition.bytes // 2)
        partition.bytes -= twin.bytes
        partition.hot_seconds = partition.ascending = partition.writes = 0
        partition.recent.clear()
        self.partitions.insert(index + 1, twin)
        self._lows.insert(index + 1, at)
        return True

    def double(self) -> None:
        """Every partition split in two by its hash range (throughput raised: provisioned or on-demand growth)."""
        for partition in list(self.partitions):
            self.split(partition, by_traffic=False)
