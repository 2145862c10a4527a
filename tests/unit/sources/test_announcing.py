"""What a round of the sources announces: a dataset turned stale once for its live version, a source turned failing
once for its streak, what could not be delivered announced again at the next round, and what a round did not look
at left as it was."""

from __future__ import annotations

from collections.abc import Mapping

from fencepost.core.events import Event
from fencepost.core.sources.schedule import Outcome
from fencepost.sources.announcing import announce
from fencepost.sources.outcomes import Checked
from fencepost.sources.staleness import Stale


class Kept:
    """The table's item of what was announced, with the number of writes."""

    def __init__(self) -> None:
        self.kept: dict[str, str] = {}
        self.writes = 0

    def announced(self) -> dict[str, str]:
        return dict(self.kept)

    def keep_announced(self, kept: Mapping[str, str]) -> None:
        self.kept, self.writes = dict(kept), self.writes + 1


class Bus:
    """Delivers every event but while ``down``."""

    def __init__(self) -> None:
        self.delivered: list[Event] = []
        self.down = False

    def publish(self, *events: Event) -> list[Event]:
        if self.down:
            return list(events)
        self.delivered.extend(events)
        return []


def stale(name: str, version: int) -> Stale:
    return Stale(name, version, "2026-11-28T00:00:00+00:00", 90_000, 86_400)


def failing(dataset: str, outcome: Outcome | None = Outcome.FAILED) -> Checked:
    return Checked(dataset, outcome, "404 Not Found" if outcome else "not due", failing=True)


def names(events: list[Event]) -> list[tuple[str, str]]:
    return [(event.kind.name, event.dataset) for event in events]


def test_each_is_announced_once_and_again_only_after_it_recovered() -> None:
    bus, kept = Bus(), Kept()
    announce(bus, kept, stale=[stale("geo", 4)], checked=[failing("drop")])
    assert names(bus.delivered) == [("dataset_stale", "geo"), ("source_failing", "drop")]
    # The next rounds: still stale, still failing (checked, or not due): nothing new, nothing written
    announce(bus, kept, stale=[stale("geo", 4)], checked=[failing("drop")])
    announce(bus, kept, stale=[stale("geo", 4)], checked=[failing("drop", None)])
    assert len(bus.delivered) == 2
    assert kept.writes == 1
    # Fresh and well again, then stale (a newer version) and failing again: announced again
    announce(bus, kept, stale=[], checked=[Checked("drop", Outcome.CHANGED)])
    assert kept.kept == {}
    announce(bus, kept, stale=[stale("geo", 5)], checked=[failing("drop")])
    assert names(bus.delivered[2:]) == [("dataset_stale", "geo"), ("source_failing", "drop")]
    assert bus.delivered[2].detail["version"] == 5


def test_what_could_not_be_delivered_is_announced_at_the_next_round() -> None:
    bus, kept = Bus(), Kept()
    bus.down = True
    assert announce(bus, kept, stale=[stale("geo", 4)], checked=[]) == []
    assert kept.kept == {}
    bus.down = False
    assert names(announce(bus, kept, stale=[stale("geo", 4)], checked=[])) == [("dataset_stale", "geo")]
    assert kept.kept == {"stale/geo": "4"}


def test_what_a_round_did_not_look_at_is_kept() -> None:
    bus, kept = Bus(), Kept()
    announce(bus, kept, stale=[stale("geo", 4)], checked=[failing("drop")])
    # A round whose stale datasets could not be read, and that checked no source (its time was up)
    announce(bus, kept, stale=None, checked=[])
    assert kept.kept == {"stale/geo": "4", "failing/drop": "1"}
    announce(bus, kept, stale=[stale("geo", 4)], checked=[failing("drop")])
    assert len(bus.delivered) == 2
