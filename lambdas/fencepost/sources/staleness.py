"""The datasets whose live version is older than their max age (``fencepost.core.folders.max_age``), counted at each
scheduled round of the fetch function as the ``DatasetsStale`` metric, which an alarm may watch.

One strongly consistent Query of the ``#datasets`` partition and one of ``#sources`` a round (every 5 minutes on AWS):
the same reads ``GET /datasets`` makes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol

from fencepost.core.folders.max_age import effective_max_age, freshness
from fencepost.core.sources.schedule import SourceState
from fencepost.model import DatasetRecord

METRIC: Final = "DatasetsStale"


class DatasetsAndSources(Protocol):
    def list_datasets(self) -> list[DatasetRecord]: ...
    def list_source_states(self) -> dict[str, SourceState]: ...


@dataclass(frozen=True, slots=True)
class Stale:
    """A dataset serving a version older than its max age (seconds), as its change event announces it."""

    name: str
    version: int
    loaded_at: str
    age: int
    max_age: int


def stale_versions(store: DatasetsAndSources, now: float) -> list[Stale]:
    """The datasets serving a version older than their max age at ``now`` (epoch seconds), in name order; a retired
    dataset, or one serving nothing, is never stale."""
    states = store.list_source_states()
    stale = []
    for record in store.list_datasets():
        if record.retired or record.live is None:
            continue
        state = states.get(record.name)
        every = None if state is None else state.every
        found = freshness(record.loaded_at, effective_max_age(record.max_age, every), now)
        if found is not None and found.stale:
            stale.append(Stale(record.name, record.live, record.loaded_at or "", found.age, found.max_age))
    return sorted(stale, key=lambda each: each.name)


def stale_datasets(store: DatasetsAndSources, now: float) -> list[str]:
    """The names of the stale datasets (``stale_versions``), in name order."""
    return [each.name for each in stale_versions(store, now)]
