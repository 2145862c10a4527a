"""What is served, in memory, with the rules of ``fencepost.aws.dynamo.serving.ServingTable``: dataset records as read,
the live pointers, and the transitions that change them (going live, rollback, retirement), each applied whole or
not at all, as the real adapter's transactions are.

Pointers live in the item store under ``live_pk(name)`` (a ``LivePointer``, or ``RETIRED`` for "nothing served"),
beside the build records and version headers the transactions read and mark.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from fencepost.aws.dynamo.client import Condition
from fencepost.aws.dynamo.serving import BEING_FINALIZED, FIRST_LIVE, NEWER_THAN_LIVE, RETIRE_RULE, UNCHANGED_PAIR
from fencepost.core.storage.keys import LIVE_POINTER_SK, VERSION_HEADER_SK, builds_pk, history_pk, live_pk, version_pk
from fencepost.core.versions.history import Event, Timeline, to_millisecond
from fencepost.errors import NothingToRollBack, StoreUnavailable, SupersededLoad
from fencepost.model import (
    BuildRecord,
    BuildState,
    DatasetRecord,
    LivePointer,
    LoadStatus,
    ObjectRef,
    Phase,
    Switch,
    Switched,
    VersionHeader,
)
from tests.fakes.kernel import Faults, Store, detached, port

RETIRED: Final = "nothing served"  # the pointer of a retired dataset (the real item has no version)


def only_latest_load(record: DatasetRecord | None, build: int) -> bool:
    """ONLY_LATEST_LOAD: ``#load.#version = :build``."""
    return record is not None and record.load.version == build


def loading_progress(record: DatasetRecord | None, build: int) -> bool:
    """LOADING_PROGRESS: ``#load.#version = :build AND #status = :loading``."""
    return only_latest_load(record, build) and record is not None and record.status == LoadStatus.LOADING


def first_live(record: DatasetRecord, build: int) -> bool:
    """FIRST_LIVE: ``attribute_not_exists(#live) AND (attribute_not_exists(#floor) OR #floor < :build)``."""
    return record.live is None and record.floor < build


def newer_than_live(record: DatasetRecord, old: int, build: int) -> bool:
    """NEWER_THAN_LIVE: ``#live = :old AND (attribute_not_exists(#floor) OR #floor < :build)``."""
    return record.live == old and record.floor < build


def being_finalized(build: BuildRecord | None) -> bool:
    """BEING_FINALIZED: ``#state = :finalizing`` (a missing build record has no state)."""
    return build is not None and build.state == BuildState.FINALIZING


def unchanged_pair(record: DatasetRecord, live: int, previous: int) -> bool:
    """UNCHANGED_PAIR: ``#live = :live AND #previous = :previous``."""
    return record.live == live and record.previous == previous


class FakeServing:
    """The ``#datasets`` partition (one ``DatasetRecord`` per name) and the live pointers."""

    CONDITIONS: tuple[Condition, ...] = (BEING_FINALIZED, FIRST_LIVE, NEWER_THAN_LIVE, UNCHANGED_PAIR)

    def __init__(self, store: Store, faults: Faults) -> None:
        self.store, self.faults = store, faults
        self.records: dict[str, DatasetRecord] = {}

    def _read(self, name: str) -> DatasetRecord | None:
        record = self.records.get(name)
        return detached(record) if record is not None else None

    def _write(self, record: DatasetRecord) -> DatasetRecord:
        self.records[record.name] = detached(record)
        return record

    def pointer(self, name: str) -> LivePointer | str | None:
        """The stored pointer item (read directly: not a port)."""
        found: LivePointer | str | None = self.store.get(live_pk(name), LIVE_POINTER_SK)
        return found

    def _point(self, name: str, pointer: LivePointer | str) -> None:
        self.store.put(live_pk(name), LIVE_POINTER_SK, pointer)

    def event(
        self,
        name: str,
        at: float,
        version: int | None,
        *,
        dated: bool = False,
        changed: tuple[float, float] | None = None,
    ) -> None:
        millis = round(to_millisecond(at) * 1000)
        self.store.put(history_pk(name), millis, Event(millis / 1000, version, dated=dated, changed=changed))

    @port
    def timeline(self, name: str, *, consistent: bool = False) -> Timeline:
        pk = history_pk(name)
        return Timeline(self.store.get(pk, sk) for sk in self.store.sort_keys(pk))

    @port
    def mark_gone(self, name: str, version: int, now: float) -> None:
        pk = history_pk(name)
        for sk in self.store.sort_keys(pk):
            event = self.store.get(pk, sk)
            if event.version == version and not event.gone:
                self.store.put(pk, sk, dataclasses.replace(event, gone=True, gone_at=now))

    @port
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        return self._read(name)

    @port
    def all(self) -> list[DatasetRecord]:
        return [detached(self.records[name]) for name in sorted(self.records)]

    @port
    def put(self, record: DatasetRecord) -> None:
        self._write(record)

    @port
    def get_live(self, name: str) -> LivePointer | None:
        pointer = self.pointer(name)
        if pointer is None:
            return LivePointer.of(self._read(name))  # a record written before pointers existed
        return pointer if isinstance(pointer, LivePointer) else None

    @port
    def switch_live(
        self,
        name: str,
        build: int,
        *,
        ranges: int,
        objects: list[ObjectRef],
        loaded_at: str,
        now: float,
        settings: str | None = None,
        changed: tuple[float, float] | None = None,
    ) -> Switched:
        before = self._read(name)  # (one attempt: nothing else writes between the read and the write here)
        if before is None:
            return Switched(Switch.STALE)
        if before.live == build:
            return Switched(Switch.ALREADY_LIVE, before)
        if (before.live is not None and before.live > build) or before.floor >= build:
            return Switched(Switch.STALE, before)
        record = detached(before)
        if not (first_live(record, build) if before.live is None else newer_than_live(record, before.live, build)):
            raise StoreUnavailable(f"the live version of {name!r} kept changing; retry")
        attempt: BuildRecord | None = detached(self.store.get(builds_pk(name), build))
        if not being_finalized(attempt):
            return Switched(Switch.ABANDONED, before)
        assert attempt is not None
        # The transaction: the record, the pointer and the build record, all at once.
        record.previous = before.live
        record.live, record.ranges, record.objects, record.loaded_at = build, ranges, list(objects), loaded_at
        record.live_since, record.retired, record.settings, record.held = now, False, settings, None
        header = self.store.get(version_pk(name, build), VERSION_HEADER_SK)  # the version's dates
        dated = isinstance(header, VersionHeader)
        record.built_at = (header.created_at or None) if dated else None
        record.data_date = header.data_date if dated else None
        self._write(record)
        self._point(name, LivePointer(name, build, now))
        self.event(name, now, build, changed=changed)
        attempt.switched = now
        self.store.put(builds_pk(name), build, attempt)
        return Switched(Switch.SWITCHED, before)

    @port
    def retire(self, name: str, build: int, now: float) -> DatasetRecord:
        before = self._read(name)
        if not only_latest_load(before, build):
            raise SupersededLoad(RETIRE_RULE)
        assert before is not None
        record = detached(before)
        record.retired, record.floor, record.status, record.heartbeat = True, build, LoadStatus.READY, now
        record.load.phase = Phase.RETIRED
        record.live = record.previous = record.held = None
        self._write(record)
        self._point(name, RETIRED)
        if before.live is not None and not before.retired:
            self.event(name, now, None)
        return before

    @port
    def rollback(self, name: str, now: float) -> DatasetRecord:
        record = self._read(name)
        if record is None or record.retired or record.live is None:
            raise NothingToRollBack(f"dataset {name!r} has no live version")
        if record.previous is None:
            raise NothingToRollBack(f"dataset {name!r} has no previous version to roll back to")
        target = self.store.get(version_pk(name, record.previous), VERSION_HEADER_SK)
        if not isinstance(target, VersionHeader):
            raise NothingToRollBack(f"version {record.previous} of dataset {name!r} is no longer stored")
        if not unchanged_pair(record, record.live, record.previous):
            raise StoreUnavailable(f"dataset {name!r} changed during the rollback; run it again")
        after = dataclasses.replace(
            record,
            live=record.previous,
            previous=record.live,
            objects=list(target.objects),
            ranges=target.ranges,
            loaded_at=target.created_at,
            live_since=now,
            settings=target.settings,
            held=record.sources if record.previous < record.live else None,
            built_at=target.created_at or None,
            data_date=target.data_date,
        )
        self._write(after)
        self._point(name, LivePointer(name, record.previous, now))
        self.event(name, now, record.previous)
        return detached(after)
