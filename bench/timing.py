"""Small statistics helpers: medians and percentiles of samples, in the unit asked for."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples)
