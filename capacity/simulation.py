"""The capacity model in virtual time: actors (loaders, readers) call the table, and an hour of load runs in seconds.

An actor's ``step(sim)`` makes its next call(s) at ``sim.now`` and says when it wants to run again (None: done).
Every second the table closes is kept (``seconds``): accepted and refused units per partition, as the emulator
logs them in real time. The same ``TableModel`` runs behind the emulator (``local.capacity``); a test replays one
request trace through both.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from capacity.placement import Position
from capacity.table import Second, TableModel


@dataclass(frozen=True, slots=True)
class Write:
    """One item to write: where it lives, what it costs, its partition key (for a loader's per-key waits)."""

    where: Position
    units: float
    key: str
    size: int = 0


class Actor(Protocol):
    def step(self, sim: Simulation) -> float | None: ...


@dataclass(slots=True)
class CallLog:
    """What a loader's calls met: how many, how many came back with something refused, items written."""

    calls: int = 0
    throttled: int = 0
    written: int = 0
    finished: float = 0.0  # when the last item was written

    @property
    def throttled_share(self) -> float:
        return self.throttled / self.calls if self.calls else 0.0


class Simulation:
    def __init__(self, table: TableModel) -> None:
        self.table = table
        self.now = 0.0
        self.seconds: list[Second] = []
        table.on_second = self.seconds.append
        self._queue: list[tuple[float, int, Actor]] = []
        self._order = 0

    def start(self, actor: Actor, at: float = 0.0) -> None:
        self._order += 1
        heapq.heappush(self._queue, (at, self._order, actor))

    def run(self, until: float = float("inf")) -> float:
        """Run every actor until none is left (or ``until``); the time of the last step."""
        while self._queue and self._queue[0][0] <= until:
            when, _, actor = heapq.heappop(self._queue)
            self.now = when
            following = actor.step(self)
            if following is not None:
                self.start(actor, max(following, when))
        self.table.advance(self.now + 1.0)  # close the last second
        return self.now

    def send(self, batch: Sequence[Write], log: CallLog) -> tuple[list[Write], list[str]]:
        """One BatchWriteItem now: the items refused, and the reasons when the call is refused whole."""
        refused, reasons = [], []
        for item in batch:
            reason = self.table.write(self.now, item.where, item.units, size=item.size)
            if reason is None:
                log.written += 1
            else:
                refused.append(item)
                reasons.append(reason)
        log.calls += 1
        if refused:
            log.throttled += 1
        if log.written:
            log.finished = self.now
        whole = len(refused) == len(batch)
        return refused, (sorted(set(reasons)) if whole else [])


def accepted_per_second(seconds: Sequence[Second]) -> dict[int, float]:
    """Write units accepted each second (seconds with none left out)."""
    return {second.second: second.write for second in seconds}


@dataclass(slots=True)
class Rates:
    """A load's figures: items a second over the whole load, and over its busiest stretch."""

    items: int
    seconds: float
    per_second: dict[int, float] = field(default_factory=dict)

    @property
    def average(self) -> float:
        return self.items / self.seconds if self.seconds else 0.0

    def steady(self) -> float:
        """The median of the seconds in which something was written, but the first and the last (partial)."""
        values = sorted(list(self.per_second.values())[1:-1]) or sorted(self.per_second.values())
        return values[len(values) // 2] if values else 0.0
