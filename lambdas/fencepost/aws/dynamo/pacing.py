"""How fast a loader invocation writes: a rate that finds what the table accepts, and items sent back waiting.

One ``Pacer`` is shared by an invocation's writer threads (and kept by its container from one chunk to the next).
It sends at a rate (items a second) that starts at ``START`` and grows by ``GROWTH`` a second until a call is
refused (a new table's partitions are unknown), then:

- cuts the rate when a call comes back with items refused, at the level DynamoDB names: by half for the whole
  table (``...ProvisionedThroughputExceeded``, ``...AccountLimitExceeded``, ``...MaxOnDemandThroughputExceeded``),
  by ``KEY_CUT`` for a key range (``...KeyRangeThroughputExceeded``, or items sent back unprocessed, which name no
  reason), and never above what the table took in the last second (so the first refusal, far above it, takes the
  rate down to it at once), though never below ``DEEPEST_CUT`` of it in one cut. Calls sent within ``CUT_SPACING``
  of a cut change nothing: DynamoDB counts capacity by the second;
- raises it again while calls are accepted whole: by ``FAST_INCREASE`` a second well below the rate last refused,
  by ``INCREASE`` near it (one refused call at the top of each cycle of ten seconds or so);
- never goes above ``ceiling`` (the ``writeRate`` setting; 0 for none), nor below ``FLOOR``, nor below ``HOLD`` of
  the most the table took in a second since the pacer began (a container keeps it while it writes): refusals a
  lower rate does not stop (random faults) cannot take it down to nothing.

Fresh items keep the order the build shuffled them in, so each partition keeps its share of the rate. Items sent
back (``Work.defer``) wait for their key (``Backoff``: exponentially longer while it keeps refusing), spread over
half that wait, and go again at most half a batch at a time. Nothing here sleeps or reads a clock of its own: time
is passed in, so the simulation in ``capacity`` runs the same code in virtual time.
"""

from __future__ import annotations

import heapq
import random
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Final, Generic, TypeVar

R = TypeVar("R")

START: Final = 500.0  # items a second, per invocation, before anything is known of the table
GROWTH: Final = 1.5  # per second, until the first refusal
FLOOR: Final = 5.0
INCREASE: Final = 0.02  # per second without a refusal, near the rate last refused
FAST_INCREASE: Final = 0.2  # per second, while well below it (after a deep cut)
NEAR: Final = 0.85  # "near": at least this share of the rate last refused
TABLE_CUT: Final = 0.5
DEEPEST_CUT: Final = 0.25  # at most this much of the rate is left by one cut, whatever the table took
HOLD: Final = 0.25  # never below this share of the most the table took in a second (refusals that a lower rate
# does not stop, random faults, must not take the rate down to nothing)
KEY_CUT: Final = 0.8
CUT_SPACING: Final = 1.0  # seconds: DynamoDB counts capacity by the second
KEY_BACKOFF: Final = (0.1, 2.0)  # first and longest wait of a refused key, seconds
TABLE_LEVEL: Final = ("ProvisionedThroughputExceeded", "AccountLimitExceeded", "MaxOnDemandThroughputExceeded")


def table_level(reasons: Iterable[str]) -> bool:
    """Whether DynamoDB's ``ThrottlingReasons`` name the whole table (or index), not a key range."""
    return any(reason.endswith(TABLE_LEVEL) for reason in reasons)


class Pacer:
    def __init__(self, *, ceiling: float = 0.0, start: float = START, now: float = 0.0) -> None:
        self.ceiling = ceiling if ceiling > 0 else float("inf")
        self.rate = min(start, self.ceiling)
        self.growing = True  # doubling until the first refusal
        self.ready = now  # when the next item may be sent (a token bucket of one second)
        self.last_cut = float("-inf")
        self.last_raise = now
        self.refused_at = float("inf")  # the rate at the last cut: what the table did not take
        self.since = now
        self.taken: deque[tuple[float, int]] = deque()  # (when, items accepted) over the last second
        self.best = 0.0  # the most the table took in a second, since this pacer began

    def reserve(self, count: int, now: float) -> float:
        """Seconds to wait before sending ``count`` items (0: now); the items are counted as sent."""
        start = max(self.ready, now - 1.0)  # at most one second of unused rate is kept
        self.ready = start + count / self.rate
        return max(0.0, start - now)

    def accepted(self, now: float, items: int = 0) -> None:
        """A call was accepted whole (``items`` written)."""
        self._took(now, items)
        elapsed = now - self.last_raise
        if elapsed < 0.1:
            return
        near = self.rate >= NEAR * self.refused_at
        factor = GROWTH if self.growing else 1.0 + (INCREASE if near else FAST_INCREASE)
        self.rate = min(self.ceiling, self.rate * factor ** min(elapsed, 1.0))
        self.last_raise = now

    def refused(
        self, now: float, *, share: float, whole_table: bool, sent: float | None = None, items: int = 0
    ) -> None:
        """A call sent at ``sent`` came back with ``share`` of its items refused (1.0: refused whole) and ``items``
        written. A call sent less than ``CUT_SPACING`` after the last cut changes nothing: DynamoDB counts by the
        second, so the cut cannot have taken effect for it yet. The rate is cut to no more than what the table
        took in the last second: far above it (the first refusal after doubling), one cut is enough."""
        self._took(now, items)
        self.growing = False
        self.last_raise = now
        if (now if sent is None else sent) - self.last_cut < CUT_SPACING:
            return
        cut = TABLE_CUT if whole_table else max(TABLE_CUT, min(KEY_CUT, 1.0 - share))
        took = self._rate_taken(now)
        self.refused_at = self.rate
        self.rate = max(FLOOR, HOLD * self.best, self.rate * DEEPEST_CUT, min(self.rate * cut, took))
        self.last_cut = now
        self.ready = max(self.ready, now)

    def _took(self, now: float, items: int) -> None:
        self.taken.append((now, items))
        while self.taken and self.taken[0][0] < now - 1.0:
            self.taken.popleft()
        took = self._rate_taken(now)
        if took != float("inf"):
            self.best = max(self.best, took)

    def _rate_taken(self, now: float) -> float:
        """Items a second the table took over the last second (unknown, infinite, in the first half second)."""
        window = min(1.0, now - self.since)
        return sum(count for _, count in self.taken) / window if window >= 0.5 else float("inf")


class Backoff:
    """When each refused key may be sent again."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.waits: dict[str, float] = {}
        self.until: dict[str, float] = {}
        self.rng = rng or random.Random()

    def refused(self, keys: Sequence[str], now: float) -> None:
        """The keys came back: each waits longer than the last time."""
        first, longest = KEY_BACKOFF
        for key in dict.fromkeys(keys):  # each once, in the order met: the draws do not follow the strings' hashes
            wait = min(longest, self.waits.get(key, first / 2) * 2)
            self.waits[key] = wait
            self.until[key] = now + self.rng.uniform(wait / 2, wait)

    def accepted(self, keys: Iterable[str]) -> None:
        for key in keys:
            self.waits.pop(key, None)
            self.until.pop(key, None)

    def waiting(self, key: str, now: float) -> bool:
        return self.until.get(key, 0.0) > now


class Work(Generic[R]):
    """The requests of one write: waiting to go, in flight, and sent back waiting for their key (``key_of``)."""

    def __init__(self, requests: Sequence[R], key_of: Callable[[R], str]) -> None:
        self.key_of = key_of
        self.pending: deque[R] = deque(requests)
        self.deferred: list[tuple[float, int, R]] = []  # (when it may go again, order, request)
        self.in_flight = 0
        self._order = 0

    def take(self, count: int, now: float) -> tuple[list[R], float | None]:
        """Up to ``count`` requests ready to go; none and how long to wait when some are not ready yet; none and
        None when nothing is left at all."""
        batch: list[R] = []
        # Requests sent back go again mixed with fresh ones (at most half a batch), not all at once
        room = count // 2 if self.pending else count
        while self.deferred and self.deferred[0][0] <= now and len(batch) < room:
            batch.append(heapq.heappop(self.deferred)[2])
        while self.pending and len(batch) < count:  # fresh ones keep the partitions' shares as the shuffle made them
            batch.append(self.pending.popleft())
        self.in_flight += len(batch)
        if batch:
            return batch, 0.0
        if self.deferred:
            return [], max(0.0, self.deferred[0][0] - now)
        return [], (0.05 if self.in_flight else None)  # what is in flight may come back

    def defer(self, requests: Sequence[R], keys: Backoff, now: float) -> None:
        """Requests sent back: each goes again once its key's wait is over, spread over half that wait."""
        for request in requests:
            key = self.key_of(request)
            spread = keys.waits.get(key, 0.0) / 2
            self._push(keys.until.get(key, now) + keys.rng.uniform(0.0, spread), request)

    def give_back(self, batch: Sequence[R]) -> None:
        self.pending.extendleft(reversed(batch))
        self.in_flight -= len(batch)

    def finished(self, count: int) -> None:
        self.in_flight -= count

    def drain(self) -> list[R]:
        """Everything not yet sent, for the caller to finish later."""
        left = [*self.pending, *(request for _, _, request in sorted(self.deferred))]
        self.pending.clear()
        self.deferred.clear()
        return left

    def _push(self, when: float, request: R) -> None:
        self._order += 1
        heapq.heappush(self.deferred, (when, self._order, request))
