"""A dataset's history: which version was served at each instant, and which versions are still kept.

Every change of what a dataset serves (a version going live, a rollback, a roll-forward, the dataset retiring)
is an *event*: from that instant on, that version (or, retired, nothing) is served. The version served at an
instant is that of the last event at or before it: a version is live from its switch instant inclusive, until
the next event's instant exclusive. A version can be live more than once (rolled back, then forward again).

A version stays kept while it is live or the rollback target, and after that while it was live within the
folder's ``retain_days`` (and never less than the lookup's cache TTL plus grace after it stopped); once deleted,
its events stay in the history, marked ``gone``, so that an instant served by it says so rather than answering
from another version.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

DAY = 86_400.0
MAX_RETAIN_DAYS = 3_650


class InstantError(ValueError):
    """Text that is not an RFC 3339 instant, or an instant in the future."""


@dataclass(frozen=True, slots=True)
class Event:
    """From ``at`` (epoch seconds) on, ``version`` is served; None: nothing is (the dataset retired)."""

    at: float
    version: int | None
    gone: bool = False  # the version's items were deleted: the instant is remembered, its answers are not


@dataclass(frozen=True, slots=True)
class Period:
    start: float
    end: float | None  # None: still live


class Timeline:
    """A dataset's events in time order (equal instants keep the order given: the later one wins)."""

    def __init__(self, events: Iterable[Event]) -> None:
        self.events: list[Event] = sorted(events, key=lambda event: event.at)
        self._instants = [event.at for event in self.events]

    def __len__(self) -> int:
        return len(self.events)

    def at(self, instant: float) -> Event | None:
        """The event in force at ``instant`` (inclusive of its own instant); None before the first."""
        index = bisect.bisect_right(self._instants, instant) - 1
        return self.events[index] if index >= 0 else None

    def periods(self) -> dict[int, list[Period]]:
        """Each version's live periods, oldest first."""
        found: dict[int, list[Period]] = {}
        for index, event in enumerate(self.events):
            if event.version is None:
                continue
            end = self.events[index + 1].at if index + 1 < len(self.events) else None
            if end == event.at:
                continue  # replaced in the same instant: never served
            found.setdefault(event.version, []).append(Period(event.at, end))
        return found

    def last_until(self, version: int) -> float | None:
        """When ``version`` last stopped being live; None while it is live, or when it never was."""
        periods = self.periods().get(version)
        return None if not periods else periods[-1].end

    def gone(self) -> set[int]:
        return {event.version for event in self.events if event.gone and event.version is not None}

    def oldest_kept(self) -> float | None:
        """The earliest instant from which a kept version answers; None when none does."""
        gone = self.gone()
        for event in self.events:
            if event.version is not None and event.version not in gone:
                return event.at
        return None


def keep_until(stopped: float, retain_days: int, grace: float) -> float:
    """When a version that stopped being live at ``stopped`` may be deleted: ``retain_days`` later, and never before
    no warm lookup can still read it (``grace``)."""
    return stopped + max(grace, retain_days * DAY)


def parse_instant(text: str, now: float) -> float:
    """An RFC 3339 date-time with its offset (``2026-11-01T12:00:00Z``), as epoch seconds; not after ``now``."""
    value = text.strip()
    if not 20 <= len(value) <= 40 or value[10:11] not in ("T", "t", " "):
        raise InstantError(f"as_of {text[:60]!r} is not an RFC 3339 date-time such as 2026-11-01T12:00:00Z")
    try:
        parsed = datetime.fromisoformat(value[:-1] + "+00:00" if value[-1] in "Zz" else value)
    except ValueError:
        raise InstantError(f"as_of {text[:60]!r} is not an RFC 3339 date-time such as 2026-11-01T12:00:00Z") from None
    if parsed.tzinfo is None:
        raise InstantError(f"as_of {text[:60]!r} has no offset: end it with Z (UTC) or +hh:mm")
    instant = parsed.timestamp()
    if instant > now:
        raise InstantError(f"as_of {format_instant(instant)} is in the future: history answers only the past")
    return instant


def format_instant(instant: float) -> str:
    """Epoch seconds as RFC 3339 in UTC, to the millisecond when it has any (``2026-11-01T12:00:00Z``)."""
    seconds, millis = divmod(round(instant * 1000), 1000)
    text = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{millis:03d}Z" if millis else f"{text}Z"


def newest_first(periods: dict[int, list[Period]]) -> Sequence[int]:
    """The versions by the start of their latest live period, the latest first."""
    return sorted(periods, key=lambda version: (periods[version][-1].start, version), reverse=True)
