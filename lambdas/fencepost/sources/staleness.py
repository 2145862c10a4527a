"""The datasets whose live version is older than their max age (``fencepost.core.folders.max_age``), counted at each
scheduled round of the fetch function as the ``DatasetsStale`` metric, which an alarm may watch.

One strongly consistent Query of the ``#datasets`` partition and one of ``#sources`` a round (every 5 minutes on AWS):
the same reads ``GET /datasets`` makes."""

from __future__ import annotations

from typing import Final, Protocol

from fencepost.core.folders.max_age import effective_max_age, freshness
from fencepost.core.sources.schedule import SourceState
from fencepost.model import DatasetRecord

METRIC: Final = "DatasetsStale"


class DatasetsAndSources(Protocol):
    def list_datasets(self) -> list[DatasetRecord]: ...
    def list_source_states(self) -> dict[str, SourceState]: ...


def stale_datasets(store: DatasetsAndSources, now: float) -> list[str]:
    """The names of the datasets serving a version older than their max age at ``now`` (epoch seconds), in name
    order; a retired dataset, or one serving nothing, is never stale."""
    states = store.list_source_states()
    stale = []
    for record in store.list_datasets():
        if record.retired or record.live is None:
            continue
        state = states.get(record.name)
        every = None if state is None else state.every
        found = freshness(record.loaded_at, effective_max_age(record.max_age, every), now)
        if found is not None and found.stale:
            stale.append(record.name)
    return sorted(stale)
