"""One table's capacity, second by second: what it accepts, what it refuses and why, how its partitions split.

Every request is accounted by the units it consumes (``keys``) in the second it arrives, against, in order:
the partition holding its key (1,000 write units; 3,000 read units, 4,500 for eventually consistent reads), the
partitions of every index it writes to, the table's provisioned capacity plus its burst pool (provisioned tables),
and the per-table quota. The first limit crossed names the refusal, as DynamoDB's ``ThrottlingReasons`` do:
``{Table|Index}{Read|Write}{KeyRangeThroughputExceeded|ProvisionedThroughputExceeded|AccountLimitExceeded}``.

Adaptive capacity is modelled coarsely: within a provisioned table, a hot partition may take unused capacity of
the others at once, up to its own limit. The hash is not published (``keys``). Every figure is ``facts``'s,
multiplied by ``scale``; time is whatever the caller says it is (real in the emulator, virtual in a simulation).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from capacity import facts
from capacity.modes import Mode
from capacity.partitions import Keyspace, Partition
from capacity.placement import Position


@dataclass(frozen=True, slots=True)
class PartitionSecond:
    index: str  # "" for the table, else the index's name
    number: int  # its place in key order
    hash_low: int
    read: float
    write: float
    read_throttled: float
    write_throttled: float


@dataclass(frozen=True, slots=True)
class Second:
    """What one second held: the units each active partition served and refused, and the partition counts."""

    second: int
    partitions: tuple[PartitionSecond, ...]
    table_partitions: int

    @property
    def write(self) -> float:
        return sum(p.write for p in self.partitions if not p.index)

    @property
    def write_throttled(self) -> float:
        return sum(p.write_throttled for p in self.partitions if not p.index)

    @property
    def read(self) -> float:
        return sum(p.read for p in self.partitions if not p.index)


IndexWrite = tuple[str, Position, float]  # index name, the item's position in it, the units it takes there


class TableModel:
    def __init__(
        self,
        mode: Mode,
        *,
        scale: float = 1.0,
        start: float = 0.0,
        heat_split_seconds: float = facts.HEAT_SPLIT_SECONDS,
        on_second: Callable[[Second], None] | None = None,
    ) -> None:
        self.mode, self.scale = mode, scale
        self.keys = Keyspace(mode.partitions)
        self.indexes: dict[str, Keyspace] = {}
        self.provisioned = mode.provisioned
        self.heat_split_seconds = heat_split_seconds
        self.on_second = on_second
        self.second = math.floor(start)
        self.used = {"read": 0.0, "write": 0.0}
        self.burst = {"read": 0.0, "write": 0.0}  # unused provisioned capacity kept ([docs-burst])
        self.pressure_seconds = 0  # consecutive seconds an on-demand table ran near or over its partitions
        self.splits = 0

    # -- configuration ---------------------------------------------------------------------------------------------

    def add_index(self, name: str) -> None:
        """A global secondary index: partitions of its own, as many as the table's at creation ([gsi-study])."""
        self.indexes[name] = Keyspace(self.mode.partitions)

    def switch_to_on_demand(self, now: float) -> None:
        """Provisioned to on-demand: billing changes, the partitions stay ([docs-splits])."""
        self.advance(now)
        self.provisioned = False

    # -- requests ----------------------------------------------------------------------------------------------------

    def write(
        self, now: float, where: Position, units: float, *, size: int = 0, indexes: Sequence[IndexWrite] = ()
    ) -> str | None:
        """Account one item's write; the reason it is refused, or None when it is accepted (and consumed)."""
        self.advance(now)
        if self.mode.unlimited:
            return None
        partition = self.keys.find(where)
        reason = self._room(partition, "write", units, facts.PARTITION_WRITE_UNITS, "Table")
        targets = (
            [(self.indexes[name].find(position), cost) for name, position, cost in indexes if name in self.indexes]
            if indexes
            else []
        )
        for target, cost in targets:
            reason = reason or self._room(target, "write", cost, facts.PARTITION_WRITE_UNITS, "Index")
        if reason is not None:
            partition.write_throttled += units
            return reason
        partition.write += units
        partition.note_write(where, size)
        for target, cost in targets:
            target.write += cost
        self.used["write"] += units
        return None

    def read(
        self, now: float, where: Position, units: float, *, eventual: bool, index: str | None = None
    ) -> str | None:
        """Account one read (a Get, or a Query's whole answer) at ``where``; its refusal's reason, or None."""
        self.advance(now)
        if self.mode.unlimited:
            return None
        space = self.keys if index is None else self.indexes.get(index, self.keys)
        partition = space.find(where)
        limit = facts.PARTITION_EVENTUAL_READ_UNITS if eventual else facts.PARTITION_READ_UNITS
        reason = self._room(partition, "read", units, limit, "Table" if index is None else "Index")
        if reason is not None:
            partition.read_throttled += units
            return reason
        partition.read += units
        partition.strong_reads |= not eventual
        partition.recent.append(where)
        self.used["read"] += units
        return None

    def _room(self, partition: Partition, kind: str, units: float, limit: float, resource: str) -> str | None:
        served = partition.write if kind == "write" else partition.read
        if served + units > limit * self.scale:
            return f"{resource}{kind.title()}KeyRangeThroughputExceeded"
        if resource == "Index":
            return None
        if self.provisioned:
            capacity = (self.mode.write_units if kind == "write" else self.mode.read_units) * self.scale
            if self.used[kind] + units > capacity + self.burst[kind]:
                return f"Table{kind.title()}ProvisionedThroughputExceeded"
        if self.used[kind] + units > facts.TABLE_MAX_UNITS * self.scale:
            return f"Table{kind.title()}AccountLimitExceeded"
        return None

    # -- time --------------------------------------------------------------------------------------------------------

    def advance(self, now: float) -> None:
        """Close every second before ``now``'s: statistics out, heat counted, splits made, burst kept."""
        second = math.floor(now)
        if second <= self.second:
            return
        self._close()
        idle = second - self.second - 1  # whole seconds with no request at all
        if idle > 0:
            self._idle(idle)
        self.second = second

    def _close(self) -> None:
        spaces = [("", self.keys), *self.indexes.items()]
        if self.on_second is not None:
            active = tuple(
                PartitionSecond(name, number, p.low[0], p.read, p.write, p.read_throttled, p.write_throttled)
                for name, space in spaces
                for number, p in enumerate(space.partitions)
                if p.active()
            )
            if active:
                self.on_second(Second(self.second, active, len(self.keys)))
        self._grow_on_demand()
        for _, space in spaces:
            for partition in list(space.partitions):
                self._heat(space, partition)
        self._keep_burst(1)
        self.used = {"read": 0.0, "write": 0.0}

    def _heat(self, space: Keyspace, partition: Partition) -> None:
        scale = self.scale
        read_limit = facts.PARTITION_READ_UNITS if partition.strong_reads else facts.PARTITION_EVENTUAL_READ_UNITS
        hot = (
            partition.write >= facts.HEAT_SHARE * facts.PARTITION_WRITE_UNITS * scale
            or partition.read >= facts.HEAT_SHARE * read_limit * scale
            or partition.write_throttled > 0
            or partition.read_throttled > 0
        )
        write_limit = facts.PARTITION_WRITE_UNITS * scale
        writes_hot = partition.write_throttled > 0 or partition.write >= facts.HEAT_SHARE * write_limit
        partition.hot_seconds = partition.hot_seconds + 1 if hot else 0
        partition.reset_second()
        if partition.bytes > facts.SPLIT_BYTES and space.split(partition, by_traffic=False):
            self.splits += 1
            return
        if partition.hot_seconds < self.heat_split_seconds:
            return
        # Writes that only ever go past the last one (an ever-increasing sort key) gain nothing from a split
        increasing = writes_hot and partition.writes > 0 and partition.ascending == partition.writes
        if not increasing and space.split(partition, by_traffic=True):
            self.splits += 1
        else:
            partition.hot_seconds = 0

    def _grow_on_demand(self) -> None:
        """An on-demand table running near or over what its partitions serve doubles them after a sustained
        stretch ([qyjohn]: steps of about a quarter of an hour)."""
        if self.provisioned or self.mode.unlimited:
            return
        serve = len(self.keys) * facts.PARTITION_WRITE_UNITS * self.scale
        throttled = any(p.write_throttled or p.read_throttled for p in self.keys.partitions)
        pressed = throttled or self.used["write"] >= 0.5 * serve
        self.pressure_seconds = self.pressure_seconds + 1 if pressed else 0
        if self.pressure_seconds >= facts.ON_DEMAND_GROWTH_SECONDS:
            self.keys.double()
            self.splits += 1
            self.pressure_seconds = 0

    def _idle(self, seconds: int) -> None:
        for space in (self.keys, *self.indexes.values()):
            for partition in space.partitions:
                partition.hot_seconds = 0
        self.pressure_seconds = 0
        self._keep_burst(seconds)

    def _keep_burst(self, seconds: int) -> None:
        if not self.provisioned:
            return
        for kind, units in (("write", self.mode.write_units), ("read", self.mode.read_units)):
            capacity = units * self.scale
            spare = max(0.0, capacity - self.used[kind]) + capacity * (seconds - 1)
            drawn = max(0.0, self.used[kind] - capacity)
            self.burst[kind] = min(facts.BURST_SECONDS * capacity, max(0.0, self.burst[kind] - drawn) + spare)
