"""Which version of each dataset answers each row: the live one, the one live at a fixed instant, or the one live at
each row's own instant, from the dataset's history (``reading.past.History``'s rules: a version is live from its
switch instant inclusive; an instant no kept version served gives ``NO_VERSION_AT``).

A row's instant is resolved by a search over the history's switch instants for the whole batch at once; the versions
met are read once each (their table files) and kept for the job.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.versions.history import Timeline
from fencepost.enrichment.table import TableStore, VersionTable
from fencepost.errors import NoVersionAt, ServiceError, UnknownDataset, VersionGone
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.lookup import Lookup

UNRESOLVED = (UnknownDataset, NoVersionAt, VersionGone)


class VersionSource(Protocol):
    """Where a job's versions come from: the service (its table and bucket) or a file of ranges; the keyed
    datasets the versions join come from the same place."""

    def live(self, dataset: str) -> LivePointer: ...
    def at(self, dataset: str, instant: float) -> LivePointer:
        """The version live at ``instant``, or ``NoVersionAt`` / ``VersionGone`` as ``GET /lookup?as_of=`` says."""
        ...

    def timeline(self, dataset: str) -> Timeline: ...
    def info(self, pointer: LivePointer) -> VersionInfo: ...
    def table(self, info: VersionInfo) -> VersionTable: ...
    def keyed(self, info: VersionInfo) -> KeyedTable:
        """The table of a keyed version, as lookups read it (``reading.keyed_tables``); raises as they do."""
        ...


@dataclass(frozen=True, slots=True)
class Slot:
    """One version ready to answer: its header, its arrays, and the lookup's read path over them."""

    info: VersionInfo
    table: VersionTable
    lookup: Lookup


@dataclass(slots=True)
class Resolver:
    """The versions of one dataset that answer a job's rows, each read once."""

    dataset: str
    source: VersionSource
    slots: list[Slot] = field(default_factory=list)
    _by_version: dict[int, int] = field(default_factory=dict)
    _timeline: Timeline | None = None

    def slot_of(self, pointer: LivePointer) -> int:
        index = self._by_version.get(pointer.version)
        if index is None:
            info = self.source.info(pointer)
            table = self.source.table(info)
            self.slots.append(Slot(info, table, Lookup(TableStore(table), ttl=math.inf)))
            index = self._by_version[pointer.version] = len(self.slots) - 1
        return index

    def fixed(self, instant: float | None) -> int:
        """The one slot of every row: the live version, or that live at ``instant``; raises as the lookup does."""
        pointer = self.source.live(self.dataset) if instant is None else self.source.at(self.dataset, instant)
        return self.slot_of(pointer)

    def per_row(self, instants: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.int32], dict[int, ServiceError]]:
        """Each row's slot, by its instant (NaN: no time, slot -1); a row whose instant no kept version served gets
        slot ``-2 - k`` and ``errors[-2 - k]`` says why (k counts the distinct instants refused in this batch)."""
        if self._timeline is None:
            self._timeline = self.source.timeline(self.dataset)
        return by_instant(self.source, self.dataset, self._timeline, instants, self.slot_of)


def by_instant(
    source: VersionSource,
    dataset: str,
    timeline: Timeline,
    instants: npt.NDArray[np.float64],
    slot_of: Callable[[LivePointer], int],
    *,
    refused: tuple[type[ServiceError], ...] = UNRESOLVED,
) -> tuple[npt.NDArray[np.int32], dict[int, ServiceError]]:
    """Each row's slot among a dataset's versions by its instant, a search over ``timeline``'s switch instants for
    all rows at once: ``slot_of`` a version live then, -1 for NaN (no time), ``-2 - k`` for the k-th distinct instant
    no kept version served (in ``errors``, why: the error of ``source.at`` among ``refused``, as
    ``GET /lookup?as_of=`` says it)."""
    events = np.array([event.at for event in timeline.events], dtype=np.float64)
    event_of = np.searchsorted(events, instants, side="right") - 1
    slots = np.full(len(instants), -1, dtype=np.int32)
    errors: dict[int, ServiceError] = {}
    known = ~np.isnan(instants)
    for event in np.unique(event_of[known]).tolist():
        rows = np.flatnonzero(known & (event_of == event))
        found = timeline.events[event] if event >= 0 else None
        if found is not None and found.version is not None and not found.gone:
            slots[rows] = slot_of(LivePointer(dataset, found.version, found.at))
            continue
        distinct, inverse = np.unique(instants[rows], return_inverse=True)  # the reason names the instant
        base = -2 - len(errors)
        for offset, instant in enumerate(distinct.tolist()):
            errors[base - offset] = _refusal(source, dataset, instant, refused)
        slots[rows] = base - inverse.astype(np.int32)
    return slots, errors


def _refusal(
    source: VersionSource, dataset: str, instant: float, refused: tuple[type[ServiceError], ...]
) -> ServiceError:
    """Why no version of ``dataset`` answers at ``instant``."""
    try:
        source.at(dataset, instant)
    except refused as raised:
        return raised
    return NoVersionAt(f"no version of dataset {dataset!r} answers then")
