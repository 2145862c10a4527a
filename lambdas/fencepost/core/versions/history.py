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
import math
import re
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
    gone: bool = False  # the version's items are deleted: the instant is remembered, its answers are not
    gone_at: float | None = None  # when it was marked gone (its items go a grace after)
    dated: bool = False  # placed from a dated folder (``core.folders.backfill``): never live, only of the past
    # A build going live: the percent of the IPv4 and of the IPv6 address space whose answer it changed, as it
    # measured against the version it replaced (None: a rollback, a first version, or a switch recorded before
    # the figure was kept)
    changed: tuple[float, float] | None = None


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

    def of(self, version: int) -> list[Event]:
        """The events that made ``version`` live, oldest first (none: it never was)."""
        return [event for event in self.events if event.version == version]

    def kept(self, version: int) -> bool:
        """Whether ``version`` was live once and is not marked gone."""
        events = self.of(version)
        return bool(events) and not any(event.gone for event in events)

    def gone(self) -> set[int]:
        return {event.version for event in self.events if event.gone and event.version is not None}

    def gone_at(self, version: int) -> float | None:
        """When ``version`` was marked gone (None: it is not)."""
        marked = [event.gone_at or 0.0 for event in self.events if event.version == version and event.gone]
        return max(marked) if marked else None

    def first_live(self) -> Event | None:
        """The dataset's first event that is no dated folder's: when it first went live (or retired)."""
        return next((event for event in self.events if not event.dated), None)

    def oldest_kept(self) -> float | None:
        """The earliest instant from which a kept version answers; None when none does."""
        gone = self.gone()
        for event in self.events:
            if event.version is not None and event.version not in gone:
                return event.at
        return None


def changed_since(timeline: Timeline, start: float) -> tuple[float, float]:
    """The percent of the IPv4 and of the IPv6 address space changed by the builds that went live at ``start`` or
    later, summed: an upper bound of how far what is served now has moved from what was served then, read from the
    history alone (the versions in between may be deleted). A rollback serves again a version that was served
    before, chosen by a person: it counts nothing, and neither does a first version (nothing was served before)."""
    v4 = v6 = 0.0
    for event in timeline.events:
        if event.at >= start and event.changed is not None and not event.dated:
            v4, v6 = v4 + event.changed[0], v6 + event.changed[1]
    return v4, v6


def keep_until(stopped: float, retain_days: int, grace: float) -> float:
    """When a version that stopped being live at ``stopped`` may be deleted: ``retain_days`` later, and never before
    no warm lookup can still read it (``grace``)."""
    return stopped + max(grace, retain_days * DAY)


_RFC_3339 = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[Tt ](?P<time>\d{2}:\d{2}:\d{2})(?P<fraction>\.\d{1,9})?"
    r"(?P<offset>[Zz]|[+-]\d{2}:\d{2})",
    re.ASCII,
)
_EXAMPLE = "an RFC 3339 date-time such as 2026-11-01T12:00:00Z"
EARLIEST = 0.0  # 1970-01-01T00:00:00Z: no dataset's history begins before


def to_millisecond(instant: float) -> float:
    """An instant as the history keeps it: truncated to the millisecond (event keys and ``as_of`` alike)."""
    return math.floor(instant * 1000 + 1e-6) / 1000


def parse_instant(text: str, now: float) -> float:
    """An RFC 3339 date-time with its offset (``2026-11-01T12:00:00Z``), as epoch seconds truncated to the
    millisecond; from 1970 on, not after ``now``."""
    match = _RFC_3339.fullmatch(text.strip())
    if match is None:
        raise InstantError(f"as_of {text[:60]!r} is not {_EXAMPLE} (with its offset: Z or +hh:mm)")
    offset = "+00:00" if match["offset"] in "Zz" else match["offset"]
    fraction = (match["fraction"] or "")[:7]  # (to the microsecond: all Python reads)
    clock = match["time"]
    leap = clock.endswith(":60")  # a leap second (RFC 3339 allows :60): the instant after :59, as POSIX time counts it
    try:
        parsed = datetime.fromisoformat(f"{match['date']}T{clock[:-2] + '59' if leap else clock}{fraction}{offset}")
        instant = parsed.timestamp() + (1 if leap else 0)
    except (ValueError, OverflowError):
        raise InstantError(f"as_of {text[:60]!r} is not {_EXAMPLE}") from None
    if instant < EARLIEST:
        raise InstantError(f"as_of {text[:60]!r} is before 1970: no history begins that early")
    if instant > now:
        raise InstantError(f"as_of {text[:60]!r} is in the future: history answers only the past")
    return to_millisecond(instant)


def format_instant(instant: float) -> str:
    """Epoch seconds (from 1970) as RFC 3339 in UTC, to the millisecond when it has any (``2026-11-01T12:00:00Z``)."""
    seconds, millis = divmod(math.floor(instant * 1000 + 1e-6), 1000)
    text = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{millis:03d}Z" if millis else f"{text}Z"


def newest_first(periods: dict[int, list[Period]]) -> Sequence[int]:
    """The versions by the start of their latest live period, the latest first."""
    return sorted(periods, key=lambda version: (periods[version][-1].start, version), reverse=True)
