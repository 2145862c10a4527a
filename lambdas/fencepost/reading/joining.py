"""Keyed datasets joined into answers, live (``core.keyed.join_spec``): each request reads every keyed dataset its
versions join once, from the version live when the request is made (or live at ``as_of``), and completes each found
answer from it.

A warm container reads nothing for this: the keyed dataset's live pointer is the lookup cache's (``CACHE_TTL_SECONDS``,
like any dataset's), its version header and table are kept (``fencepost.reading.keyed_tables``). A keyed dataset
that is not loaded, or whose table is missing or too large, never fails the lookup: its columns are null and the
answer's ``joined`` says why. A store that does not answer is a 503, as for the range dataset's own reads: an answer
with nulls would be cached under the complete answer's entity tag.
``version=N`` pins the range dataset's version only: the keyed dataset answers from its live version.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.keyed.keyed_table import KeyedTable, normalize
from fencepost.errors import InvalidRequest, NoVersionAt, ServiceError, Unavailable, UnknownDataset, VersionGone
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.answers import Answer, Outcome
from fencepost.reading.joined import JoinedPart
from fencepost.reading.keyed_tables import KeyedTables
from fencepost.reading.past import History, Past

UNREADABLE: Final = (UnknownDataset, NoVersionAt, VersionGone, Unavailable, InvalidRequest)


@dataclass(frozen=True, slots=True)
class KeyedRead:
    """One keyed dataset as a request reads it: its pointer and table, or the error that kept it from being read."""

    dataset: str
    pointer: LivePointer | None
    table: KeyedTable | None
    error: ServiceError | None = None


@dataclass(frozen=True, slots=True)
class Pinned:
    """The keyed datasets one request joins, each read once."""

    reads: dict[str, KeyedRead]

    def validated(self) -> list[tuple[str, int | None, float | None]]:
        """What the answer's entity tag depends on besides its own datasets: each keyed version read."""
        return [
            (name, None, None) if read.pointer is None else (name, read.pointer.version, read.pointer.live_since)
            for name, read in self.reads.items()
        ]

    def attach(self, outcome: Outcome) -> Outcome:
        """A found answer of a version that joins, with its joined parts; any other outcome as it is."""
        if not isinstance(outcome, Answer) or not outcome.info.keyed_joins:
            return outcome
        return dataclasses.replace(outcome, joined=self.parts(outcome.info, outcome.hit.values))

    def parts(self, info: VersionInfo, values: Sequence[str]) -> tuple[JoinedPart, ...]:
        """What each join of ``info`` adds to a found answer whose values (by ``info.columns``) are ``values``."""
        by_column = dict(zip(info.columns, values, strict=False))
        return tuple(self._part(join, by_column.get(join.on, "")) for join in info.keyed_joins)

    def _part(self, join: KeyedJoin, value: str) -> JoinedPart:
        read = self.reads[join.dataset]
        version = None if read.pointer is None else read.pointer.version
        if read.table is None:
            error = None if read.error is None else read.error.body()
            return JoinedPart(join, version, None, None, error)
        key = normalize(read.table.form, value)
        row = None if key is None else read.table.rows.get(key)
        if row is None:
            return JoinedPart(join, version, key)
        return JoinedPart(join, version, key, read.table.pick(row, join.columns))


NO_JOINS: Final = Pinned({})


class Joins:
    """Reads the keyed datasets a request's versions join: pointers and versions through ``history`` (and its
    lookup's caches), tables through ``tables``."""

    def __init__(self, history: History, tables: KeyedTables) -> None:
        self.history, self.tables = history, tables

    def pin(self, versions: Sequence[object], past: Past | None) -> Pinned:
        """Every keyed dataset ``versions`` join, read once: live, or at ``past``'s instant."""
        names: list[str] = []
        for info in versions:
            for join in getattr(info, "keyed_joins", ()):
                if join.dataset not in names:
                    names.append(join.dataset)
        if not names:
            return NO_JOINS
        instant = None if past is None else past.instant
        return Pinned({name: self.read(name, instant) for name in names})

    def read(self, name: str, instant: float | None, version: int | None = None) -> KeyedRead:
        """The keyed dataset ``name``: live, live at ``instant``, or its kept ``version``."""
        pointer = None
        try:
            lookup = self.history.lookup
            if version is not None:
                pointer = self.history.version(name, version)
            else:
                pointer = lookup.live_pointer(name) if instant is None else self.history.at(name, instant)
            info = lookup.version_of(pointer)
            return KeyedRead(name, pointer, self.table(info))
        except UNREADABLE as error:
            return KeyedRead(name, pointer, None, error)

    def table(self, info: VersionInfo) -> KeyedTable:
        """The table of a keyed version; ``InvalidRequest`` when ``info`` is a range dataset's."""
        if info.keyed is None:
            raise InvalidRequest(f"dataset {info.dataset!r} is not a keyed dataset: it has ranges, not keys")
        return self.tables.table(info)
