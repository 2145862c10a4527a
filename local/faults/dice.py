"""Seeded decisions and the counts of what was injected.

Each fault draws from a stream of its own, seeded from ``FAULTS_SEED`` and its name: with the same seed, the n-th
request a fault sees gets the same decision in every run. Which request is the n-th depends on the order requests
arrive in, which threads decide; a run with one writer and one worker repeats exactly.
"""

from __future__ import annotations

import random
import threading
from collections import Counter


class Dice:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._streams: dict[str, random.Random] = {}
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    def _stream(self, fault: str) -> random.Random:
        stream = self._streams.get(fault)
        if stream is None:
            stream = self._streams[fault] = random.Random(f"{self.seed}:{fault}")
        return stream

    def roll(self, fault: str, rate: float) -> bool:
        """True for a share ``rate`` of the calls (never for 0, always for 1)."""
        if rate <= 0:
            return False
        with self._lock:
            return self._stream(fault).random() < rate

    def pick(self, fault: str, low: int, high: int) -> int:
        """A number from ``low`` to ``high``, both included."""
        with self._lock:
            return self._stream(fault).randint(low, high)

    def count(self, what: str, n: int = 1) -> None:
        with self._lock:
            self._counts[what] += n

    def counts(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)
