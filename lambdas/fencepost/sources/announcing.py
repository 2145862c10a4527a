"""What a round of the sources announces (``fencepost.core.events``): each dataset that turned stale, once for its
live version, and each source that turned failing, once for its streak of failed checks, not at every round of five
minutes. What was announced is kept in the table (``Announcements``); an event that could not be delivered is not
kept, so the next round announces it again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Protocol

from fencepost.core.events import ChangeEvents, Event
from fencepost.core.events.announced import to_announce
from fencepost.core.events.kinds import dataset_stale, source_failing
from fencepost.core.sources.schedule import Outcome
from fencepost.sources.outcomes import FAILING, Checked
from fencepost.sources.staleness import Stale

STALE: Final = "stale/"  # the key of a dataset announced stale; its token, the version announced
FAILING_KEY: Final = "failing/"  # the key of a source announced failing
FAILED: Final = (Outcome.FAILED, Outcome.INVALID)


class Announcements(Protocol):
    def announced(self) -> dict[str, str]: ...
    def keep_announced(self, kept: Mapping[str, str]) -> None: ...


def announce(
    events: ChangeEvents, store: Announcements, *, stale: Sequence[Stale] | None, checked: Sequence[Checked]
) -> list[Event]:
    """Announce what turned stale (``stale``: every stale dataset, None when they could not be read) or failing
    (``checked``: the sources this round looked at) since the last announcements; returns the events delivered."""
    kept = store.announced()
    found: dict[str, str] = {}
    made: dict[str, Event] = {}
    seen: set[str] = set()
    if stale is not None:  # the whole list: a key not in it is a dataset fresh again
        seen |= {key for key in kept if key.startswith(STALE)}
        for each in stale:
            key = STALE + each.name
            found[key] = str(each.version)
            made[key] = dataset_stale(
                each.name, each.version, loaded_at=each.loaded_at, age_seconds=each.age, max_age_seconds=each.max_age
            )
    for check in checked:
        key = FAILING_KEY + check.dataset
        seen.add(key)
        if check.failing and check.outcome is not None and check.outcome in FAILED:
            found[key] = "1"
            outcome = check.outcome.value
            made[key] = source_failing(check.dataset, outcome=outcome, reason=check.reason, failures=FAILING)
        elif check.failing and key in kept:  # still failing, not checked this round
            found[key] = kept[key]
    new, keep = to_announce(kept, found, seen)
    lost = {id(event) for event in events.publish(*(made[key] for key in new))}
    for key in new:
        if id(made[key]) in lost:
            keep.pop(key, None)  # announced again at the next round
    if keep != kept:
        store.keep_announced(keep)
    return [made[key] for key in new if id(made[key]) not in lost]
