"""A round of the sources: in which order they are checked, and the lease that keeps one round at a time.

- Order: the sources checked longest ago first (those never checked before all), so a source that takes its whole
  time, or the round's, cannot starve the ones that sort after it: at the next round they come first.
- One round at a time, on any account: the scheduler may start the function while a round is still under way
  (a round up to ``FETCH_ROUND_SECONDS`` long, a schedule every 5 minutes, and an at-least-once invocation), and two
  rounds would fetch and write the same release twice. A round takes a lease before its first write: one item in
  the table's ``#sources`` partition written only if there is none or it has expired (a conditional write), holding
  until the round's deadline plus ``LEASE_GRACE``, and deleted when the round ends. A round that finds a live lease
  checks nothing (``RoundUnderWay``). A round with nothing to fetch, record or forget (no source due: most rounds)
  only reads, and writes no lease. A round killed before it ends frees the lease when it expires, minutes later, not
  never. Reserved concurrency would do the same on an account with room for it, but a new account's concurrency
  quota can be too small to reserve any.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Final

from fencepost.core.sources.schedule import SourceState
from fencepost.sources.needs import SourceStates
from fencepost.sources.outcomes import RoundUnderWay

LEASE_GRACE: Final = 60.0  # seconds a round's last check may still take to record what it found, past the deadline
UNBOUNDED: Final = 900.0  # a round without a deadline holds its lease this long at most (Lambda's longest run)


def order(datasets: Sequence[str], known: Mapping[str, SourceState]) -> list[str]:
    """``datasets`` in the order a round checks them: longest since its last check first, never checked before all."""

    def since(dataset: str) -> tuple[int, str]:
        state = known.get(dataset)
        last = state.last_checked if state is not None else None
        return (-1 if last is None else last, dataset)

    return sorted(datasets, key=since)


class Lease:
    """The round's lease, taken by ``hold`` when the round first has something to write."""

    def __init__(self, states: SourceStates, clock: Callable[[], int], deadline: float | None) -> None:
        self.states, self.clock, self.deadline = states, clock, deadline
        self.holder: str | None = None

    def hold(self) -> bool:
        """Hold the lease: True when this call took it (what the round read before may be stale: read it again),
        False when the round held it already. Raises ``RoundUnderWay`` when another round holds it."""
        if self.holder is not None:
            return False
        left = UNBOUNDED if self.deadline is None else max(0.0, self.deadline - time.monotonic())
        holder, now = uuid.uuid4().hex, self.clock()
        if not self.states.take_round(holder, now, now + int((left + LEASE_GRACE) * 1000)):
            raise RoundUnderWay("another round of the sources is under way: this one checks nothing")
        self.holder = holder
        return True


@contextlib.contextmanager
def lease(states: SourceStates, clock: Callable[[], int], deadline: float | None) -> Iterator[Lease]:
    """The round's lease (``clock`` gives now in ms, ``deadline`` is a monotonic instant), given back when the round
    ends if the round took it."""
    taken = Lease(states, clock, deadline)
    try:
        yield taken
    finally:
        if taken.holder is not None:
            states.end_round(taken.holder)
