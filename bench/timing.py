"""Small timing and statistics helpers: a piece of work timed, medians and percentiles of samples, and the run's
steps said with the seconds since it started."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any


def percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def timed(work: Callable[[], Any]) -> float:
    """The seconds ``work`` takes, once."""
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


_STARTED = time.monotonic()


def say(text: str) -> None:
    """A step of the run on stderr, after the seconds since the bench started (where a run spends its time)."""
    print(f"[{time.monotonic() - _STARTED:5.0f} s] {text}", file=sys.stderr, flush=True)
