"""Past files as past versions: the rules of a dataset's dated folders (``<dataset>/_history/<YYYY-MM-DD>/``).

A dated folder builds a version that never goes live. It enters the dataset's history (``core.history``) at the
start of its date (00:00 UTC) and answers lookups in the past from then until the next event: the next dated
version, or the dataset's first live version. Dated versions therefore sort by date, whatever order they were
uploaded in. A folder is refused, with a problem naming it, when its date is not before the first live version
(history from after the service began is what the service itself recorded), when it is in the future, or when the
folder's ``retain_days`` would not keep its version at all (it would be deleted as soon as it was built).

Each dated folder is built once per content: its sources (objects and settings, ``core.sources.fingerprint``) are
recorded as a ``Dated`` state, and a folder whose sources match its state is left alone, whether that build went
well or not (a failed folder is built again once it changes, as a live folder is).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from fencepost.core.history import DAY, Timeline, format_instant, keep_until

HISTORY_FOLDER: Final = "_history"
DATE_PATTERN: Final = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


class DateError(ValueError):
    """A dated folder's name that is not a date."""


def date_instant(date: str) -> float:
    """The first instant of ``YYYY-MM-DD`` in UTC, as epoch seconds; ``DateError`` for anything else."""
    if not DATE_PATTERN.fullmatch(date):
        raise DateError(f"{date[:40]!r} is not a date: a dated folder is named YYYY-MM-DD (for example 2025-01-31)")
    try:
        instant = datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
    except ValueError:
        raise DateError(f"{date!r} is no calendar date") from None
    if instant < 0:
        raise DateError(f"{date!r} is before 1970: no history begins that early")
    return instant


@dataclass(frozen=True, slots=True)
class Dated:
    """What became of a dated folder's sources: the build that read them, and why it failed. Its status is
    LOADING until that build is placed in the history (``status``: READY from then on), or FAILED."""

    date: str
    sources: str
    build: int | None = None
    status: str = "LOADING"  # (as recorded: LOADING or FAILED)
    reason: str | None = None

    def shown(self, timeline: Timeline) -> str:
        """LOADING, READY (its build is placed in the history) or FAILED."""
        placed = self.status == "LOADING" and self.build is not None and timeline.of(self.build)
        return "READY" if placed else self.status


@dataclass(frozen=True, slots=True)
class Step:
    """What a build request does with the dated folders: ``removed`` states (their folders are gone: their versions
    go too), then at most one folder, ``date``, with its ``sources``: built, or refused for ``refusal``."""

    removed: tuple[Dated, ...] = ()
    date: str | None = None
    sources: str | None = None
    refusal: str | None = None


def first_live(timeline: Timeline, dated: set[int]) -> float | None:
    """When the dataset's first live version went live: its first event that is no dated version's."""
    return next((event.at for event in timeline.events if event.version not in dated), None)


def next_step(
    folders: Mapping[str, str],
    states: Mapping[str, Dated],
    timeline: Timeline,
    *,
    retain_days: int,
    now: float,
) -> Step:
    """The next thing to do: ``folders`` maps each dated folder's date to its sources now, ``states`` each date to
    what was recorded of it. The earliest date whose sources changed is built, or refused with the reason."""
    removed = tuple(state for date, state in sorted(states.items()) if date not in folders)
    changed = [date for date in sorted(folders) if date not in states or states[date].sources != folders[date]]
    if not changed:
        return Step(removed)
    date = changed[0]
    placed = {state.build for state in states.values() if state.build is not None}
    live = first_live(timeline, placed)
    refusal = _refusal(date, sorted(folders), live, retain_days, now)
    return Step(removed, date, folders[date], refusal)


def _refusal(date: str, dates: list[str], live: float | None, retain_days: int, now: float) -> str | None:
    """Why the folder of ``date`` cannot be a past version; None when it can."""
    start = date_instant(date)
    if start > now:
        return f"{date} is in the future: a dated folder holds a version of the past"
    if live is not None and start >= live:
        return (
            f"{date} is not before the dataset's first live version (live from {format_instant(live)}): a dated "
            "folder holds a version from before the dataset was live; its later history is what the loads recorded"
        )
    later = [date_instant(other) for other in dates if other > date]
    until = min([*later, *([live] if live is not None else [])], default=None)
    if until is not None and keep_until(until, retain_days, 0.0) <= now:
        needed = int((now - until) // DAY) + 1
        return (
            f"the folder's retain_days ({retain_days}) would not keep a version that stopped answering at "
            f"{format_instant(until)}: set retain_days to at least {needed} in _settings.json to keep it"
        )
    return None
