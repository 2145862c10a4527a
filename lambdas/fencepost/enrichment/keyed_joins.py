"""Keyed datasets joined into enriched rows as ``GET /lookup`` joins them (``reading.joining``): each row's joined
columns come from the keyed version live at the instant its range version is resolved at (the job's fixed instant,
now, or the row's own instant), resolved by the keyed dataset's history as ``enrichment.resolving`` resolves range
datasets, and each keyed version's table is read once per job.

A row's keyed *slot* names what it joins: ``reads[slot]`` (a version read, or the error of a fixed instant that none
answers), -1 where the row's version does not join the dataset (or the row has no time), ``-2 - k`` where the row's
own instant is one no kept keyed version served (the batch's ``errors`` say why, naming the instant). The slots are
part of the key rows are answered once by (``enrichment.engine``), so the join adds no step per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fencepost.core.versions.history import Timeline
from fencepost.enrichment.resolving import Resolver, VersionSource, by_instant
from fencepost.errors import InvalidRequest, NoVersionAt, ServiceError, VersionGone
from fencepost.model import LivePointer
from fencepost.reading.joining import UNREADABLE, KeyedRead, Pinned

NOT_JOINED = -1  # the row's version does not join the keyed dataset


@dataclass(slots=True)
class KeyedResolver:
    """The versions of one keyed dataset a job's answers join, each table read once."""

    dataset: str
    source: VersionSource
    reads: list[KeyedRead] = field(default_factory=list)
    _by_version: dict[int, int] = field(default_factory=dict)
    _failed: dict[str, int] = field(default_factory=dict)  # a fixed instant's error, by its message: one slot each
    _timeline: Timeline | None = None

    def slot_of(self, pointer: LivePointer) -> int:
        index = self._by_version.get(pointer.version)
        if index is None:
            self.reads.append(self._read(pointer))
            index = self._by_version[pointer.version] = len(self.reads) - 1
        return index

    def _read(self, pointer: LivePointer) -> KeyedRead:
        try:
            info = self.source.info(pointer)
            if info.keyed is None:
                raise InvalidRequest(f"dataset {self.dataset!r} is not a keyed dataset: it has ranges, not keys")
            return KeyedRead(self.dataset, pointer, self.source.keyed(info))
        except UNREADABLE as error:
            return KeyedRead(self.dataset, pointer, None, error)

    def fixed(self, instant: float | None) -> int:
        """The slot of the version live now (None) or at ``instant``; a read that fails is a slot of its own."""
        try:
            pointer = self.source.live(self.dataset) if instant is None else self.source.at(self.dataset, instant)
        except UNREADABLE as error:
            index = self._failed.get(error.message)
            if index is None:
                self.reads.append(KeyedRead(self.dataset, None, None, error))
                index = self._failed[error.message] = len(self.reads) - 1
            return index
        return self.slot_of(pointer)

    def per_row(self, instants: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.int32], dict[int, ServiceError]]:
        """Each row's slot by its own instant, as ``Resolver.per_row`` gives a range dataset's."""
        if self._timeline is None:
            self._timeline = self.source.timeline(self.dataset)
        return by_instant(self.source, self.dataset, self._timeline, instants, self.slot_of, refused=UNREADABLE)


@dataclass(frozen=True, slots=True)
class KeyedSlots:
    """One batch's keyed slots: a column per keyed dataset (``names`` order), and each one's refusals."""

    names: tuple[str, ...]
    columns: list[npt.NDArray[np.int64]]
    errors: list[dict[int, ServiceError]]


class KeyedJoins:
    """The keyed datasets joined by the versions that answer a job's rows, resolved per batch."""

    def __init__(self, resolvers: Sequence[Resolver]) -> None:
        self.resolvers = list(resolvers)
        self.keyed: dict[str, KeyedResolver] = {}  # in the order first met: a batch's columns keep that order

    def slots(
        self,
        range_slots: Sequence[npt.NDArray[np.int32]],
        instants: npt.NDArray[np.float64] | None,
        fixed: float | None,
    ) -> KeyedSlots:
        """Each row's slot in every keyed dataset its range versions (``range_slots``, per resolver) join."""
        joining = self._joining(range_slots)
        count = len(range_slots[0]) if range_slots else 0
        columns, errors = [], []
        for name, keyed in self.keyed.items():
            column = np.full(count, NOT_JOINED, dtype=np.int64)
            chosen = np.flatnonzero(joining[name]) if name in joining else np.zeros(0, dtype=np.intp)
            refused: dict[int, ServiceError] = {}
            if len(chosen) and instants is None:
                column[chosen] = keyed.fixed(fixed)
            elif len(chosen) and instants is not None:
                found, refused = keyed.per_row(instants[chosen])
                column[chosen] = found
            columns.append(column)
            errors.append(refused)
        return KeyedSlots(tuple(self.keyed), columns, errors)

    def _joining(self, range_slots: Sequence[npt.NDArray[np.int32]]) -> dict[str, npt.NDArray[np.bool_]]:
        """The rows whose range version joins each keyed dataset (met for the first time: resolved from now on)."""
        joining: dict[str, npt.NDArray[np.bool_]] = {}
        for resolver, slots in zip(self.resolvers, range_slots, strict=True):
            for index, slot in enumerate(resolver.slots):
                for join in slot.info.keyed_joins:
                    rows = joining.setdefault(join.dataset, np.zeros(len(slots), dtype=bool))
                    rows |= slots == index
        for name in joining:
            if name not in self.keyed:
                self.keyed[name] = KeyedResolver(name, self.resolvers[0].source)
        return joining

    def pinned(self, slots: KeyedSlots, row: int) -> Pinned:
        """What row ``row`` joins, as a lookup pins it for a request."""
        reads: dict[str, KeyedRead] = {}
        for name, column, errors in zip(slots.names, slots.columns, slots.errors, strict=True):
            slot = int(column[row])
            if slot >= 0:
                reads[name] = self.keyed[name].reads[slot]
            else:
                reads[name] = KeyedRead(name, None, None, errors.get(slot))
        return Pinned(reads)

    def counts(
        self, slots: KeyedSlots, valid: npt.NDArray[np.bool_]
    ) -> tuple[dict[tuple[str, int], int], dict[str, int]]:
        """The rows of versions that join each keyed dataset: by the keyed version read, and those no keyed version
        answered then (``NO_VERSION_AT``, ``VERSION_GONE``; a keyed dataset not loaded or unreadable is neither)."""
        versions: dict[tuple[str, int], int] = {}
        refused: dict[str, int] = {}
        for name, column in zip(slots.names, slots.columns, strict=True):
            chosen = column[valid & (column != NOT_JOINED)]
            refused[name] = int(np.count_nonzero(chosen < NOT_JOINED))
            counts = np.bincount(chosen[chosen >= 0])
            for slot in np.flatnonzero(counts).tolist():
                read = self.keyed[name].reads[slot]
                if read.table is not None and read.pointer is not None:
                    versions[(name, read.pointer.version)] = int(counts[slot])
                elif isinstance(read.error, NoVersionAt | VersionGone):
                    refused[name] += int(counts[slot])
            if not refused[name]:
                del refused[name]
        return versions, refused
