"""A round of the sources: in which order they are checked, and the lease that keeps one round at a time.

- Order: the sources checked longest ago first (those never checked before all), so a source that takes its whole
  time, or the round's, cannot starve the ones that sort after it: at the next round they come first.
- One round at a time, on any account: the scheduler may start the function while a round is still under way
  (a round up to ``FETCH_ROUND_SECONDS`` long, a schedule every 5 minutes, and an at-least-once invocation), and two
  rounds would fetch and write the same release twice. A round takes a lease first: one item in the table's
  ``#sources`` partition written only if there is none or it has expired (a conditional write), holding until the
  round's deadline plus ``LEASE_GRACE``, and deleted when the round ends. A round that finds a live lease checks
  nothing (``RoundUnderWay``). A round killed before it ends frees the lease when it expires, minutes later, not
  never. Reserved concurrency would do the same on an account with room for it, but a new account's concurrency
  quota can be too small to reserve any.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
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


@contextlib.contextmanager
def lease(states: SourceStates, now: int, deadline: float | None) -> Iterator[None]:
    """Hold the round's lease (``now`` in ms, ``deadline`` a monotonic instant) while the round runs."""
    left = UNBOUNDED if deadline is None else max(0.0, deadline - time.monotonic())
    holder = uuid.uuid4().hex
    if not states.take_round(holder, now, now + int((left + LEASE_GRACE) * 1000)):
        raise RoundUnderWay("another round of the sources is under way: this one checks nothing")
    try:
        yield
    finally:
        states.end_round(holder)
