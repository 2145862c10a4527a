"""Past files as past versions: the rules of a dataset's dated folders (``<dataset>/_history/<YYYY-MM-DD>/``).

A dated folder builds a version that never goes live. It enters the dataset's history (``core.versions.history``) at the
start of its date (00:00 UTC) and answers lookups in the past from then until the next event: the next dated
version, or the dataset's first live version. Dated versions therefore sort by date, whatever order they were
uploaded in. A folder is refused, with a problem naming it, when its date is not before the first live version
(history from after the service began is what the service itself recorded), when it is in the future, or when the
folder's ``retain_days`` would not keep its version at all (it would be deleted as soon as it was built).

Each dated folder is built once per content: its sources (objects and settings,
``core.folders.fingerprint.fingerprint``) are recorded as a ``Dated`` state, and a folder whose sources match its state
is left alone, whether that build went well or not (a failed folder is built again once it changes, as a live folder
is).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from fencepost.core.versions.history import DAY, Timeline, format_instant, keep_until

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
    refused: bool = False  # FAILED by a rule (``next_step`` asks again: the rule may no longer hold)

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


def next_step(
    folders: Mapping[str, str],
    states: Mapping[str, Dated],
    timeline: Timeline,
    *,
    retain_days: int,
    now: float,
    live_since: float | None = None,
) -> Step:
    """The next thing to do: ``folders`` maps each dated folder's date to its sources now, ``states`` each date to
    what was recorded of it. The earliest date whose sources changed (or whose refusal no longer holds: a date no
    longer in the future, ``retain_days`` raised) is built, or refused with the reason. ``live_since``: when the
    live version went live, for a dataset whose history began after it (its history has no live event)."""
    removed = tuple(state for date, state in sorted(states.items()) if date not in folders)
    first = timeline.first_live()
    live = first.at if first is not None else live_since
    dates = sorted(folders)
    # Folders that failed do not end the period of the one before them: only those built or to be built do
    ending = [
        d for d in dates if not (d in states and states[d].sources == folders[d] and states[d].status == "FAILED")
    ]
    for date in dates:
        state = states.get(date)
        changed = state is None or state.sources != folders[date]
        if not changed and not (state is not None and state.refused):
            continue
        refusal = _refusal(date, ending, live, retain_days, now)
        if changed or refusal is None:
            return Step(removed, date, folders[date], refusal)
    return Step(removed)


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
    following = dates[bisect.bisect_right(dates, date) :][:1]  # the next date that ends this one's period
    until = min([*map(date_instant, following), *([live] if live is not None else [])], default=None)
    if until is not None and keep_until(until, retain_days, 0.0) <= now:
        needed = int((now - until) // DAY) + 1
        return (
            f"the folder's retain_days ({retain_days}) would not keep a version that stopped answering at "
            f"{format_instant(until)}: set retain_days to at least {needed} in _settings.json to keep it"
        )
    return None
