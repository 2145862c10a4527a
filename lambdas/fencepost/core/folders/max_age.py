"""How old a dataset's live version may be: a folder's ``max_age`` (``"8d"``, ``"36h"``), the default a folder fed
by a source gets from its ``every``, and whether a live version is stale.

A version's age is counted from when it was built (the dataset's ``loaded_at``: the instant the build went live, or
the build time of a version rolled back or forward to), not from when its source last checked: a source whose
publisher releases nothing new for longer than the folder's max age leaves a stale dataset, as it should. A folder
with no ``max_age`` and no source is never stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from fencepost.core.sources.spec import UNITS, parse_duration

SOURCE_INTERVALS: Final = 3  # a source-fed folder's default max age, in its source's intervals (``every``)
MAX_AGE_MOST: Final = 3650 * UNITS["d"]  # ten years, as ``retain_days``


def parse_max_age(value: Any, where: str) -> int:
    """``max_age`` of ``_settings.json`` in seconds (at least 1 s, at most 3,650 days); 0 when unset or null."""
    if value is None:
        return 0
    return parse_duration(value, where, "max_age", least=1, most=MAX_AGE_MOST)


def effective_max_age(max_age: int, every: int | None) -> int | None:
    """The max age that applies, in seconds: the folder's own (``max_age`` above 0), else ``SOURCE_INTERVALS`` times
    its source's ``every`` (``every``: None or 0 when the folder names no source), else None (never stale)."""
    if max_age > 0:
        return max_age
    if every:
        return SOURCE_INTERVALS * every
    return None


@dataclass(frozen=True, slots=True)
class Freshness:
    """A live version's age against its dataset's max age (seconds)."""

    age: int
    max_age: int

    @property
    def stale(self) -> bool:
        return self.age > self.max_age

    def to_api(self) -> dict[str, Any]:
        return {"stale": self.stale, "age_seconds": self.age, "max_age_seconds": self.max_age}


UNKNOWN: Final[dict[str, Any]] = {"stale": None, "age_seconds": None, "max_age_seconds": None}


def freshness(loaded_at: str | None, max_age: int | None, now: float) -> Freshness | None:
    """The live version's freshness at ``now`` (epoch seconds): None without a max age or a live version's build
    time (``loaded_at``, ISO 8601). A build time in the future (clocks apart) is age 0."""
    if max_age is None or not loaded_at:
        return None
    try:
        built = datetime.fromisoformat(loaded_at).timestamp()
    except ValueError:
        return None
    return Freshness(age=max(0, int(now - built)), max_age=max_age)


def shown(loaded_at: str | None, max_age: int, every: int | None, now: float) -> dict[str, Any]:
    """The fields ``GET /datasets`` shows of a dataset's freshness (all null without a max age or a live version)."""
    found = freshness(loaded_at, effective_max_age(max_age, every), now)
    return UNKNOWN if found is None else found.to_api()
