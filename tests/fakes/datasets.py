"""Dataset records in memory, with the transitions of ``fencepost.dynamo.datasets.DatasetTable``.

Each transition checks the rule its DynamoDB twin puts in its condition expression (the predicate beside each
named ``Condition`` below), then applies the same update; a refusal has the same outcome (``False``, a typed
result or the same named conflict). Records are deep-copied on the way in and out, as a table would.
"""

from __future__ import annotations

from fencepost.dynamo.datasets import (
    FIRST_LIVE,
    NEWER_THAN_LIVE,
    ONLY_LATEST_LOAD,
    ONLY_LATEST_REQUEST,
    RETRY_OWN_REQUEST,
    UNCHANGED_PAIR,
)
from fencepost.dynamo.errors import NothingToRollBack, NotLatestRequest, StoreUnavailable, SupersededLoad
from fencepost.model import DatasetRecord, LoadState, LoadStatus, ObjectRef, Phase, Problem, Switch, Switched
from tests.fakes.kernel import Faults, detached, port


def only_latest_request(record: DatasetRecord | None, request: int) -> bool:
    """ONLY_LATEST_REQUEST: ``#requests = :request AND (attribute_not_exists(#planned) OR #planned < :request)``."""
    return record is not None and record.requests == request and record.planned < request


def only_latest_load(record: DatasetRecord | None, build: int) -> bool:
    """ONLY_LATEST_LOAD: ``#load.#version = :build``."""
    return record is not None and record.load.version == build


def load_without_build(record: DatasetRecord | None) -> bool:
    """LOAD_WITHOUT_BUILD: ``attribute_type(#load.#version, :null)``."""
    return record is not None and record.load.version is None


def retry_own_request(record: DatasetRecord | None, request: int) -> bool:
    """RETRY_OWN_REQUEST: ``#planned = :request``."""
    return record is not None and record.planned == request


def first_live(record: DatasetRecord, build: int) -> bool:
    """FIRST_LIVE: ``attribute_not_exists(#live) AND (attribute_not_exists(#floor) OR #floor < :build)``."""
    return record.live is None and record.floor < build


def newer_than_live(record: DatasetRecord, old: int, build: int) -> bool:
    """NEWER_THAN_LIVE: ``#live = :old AND (attribute_not_exists(#floor) OR #floor < :build)``."""
    return record.live == old and record.floor < build


def unchanged_pair(record: DatasetRecord, live: int, previous: int) -> bool:
    """UNCHANGED_PAIR: ``#live = :live AND #previous = :previous``."""
    return record.live == live and record.previous == previous


def _load_fields(
    load: LoadState,
    *,
    phase: Phase | None = None,
    rows_read: int | None = None,
    items_written: int | None = None,
    problems: list[Problem] | None = None,
    report: str | None = None,
) -> None:
    """``SET #load.#<field> = :<field>`` for each field given (``_given`` leaves out the None ones)."""
    if phase is not None:
        load.phase = phase
    if rows_read is not None:
        load.rows_read = rows_read
    if items_written is not None:
        load.items_written = items_written
    if problems is not None:
        load.problems = list(problems)
    if report is not None:
        load.report = report


class FakeDatasets:
    """The ``#datasets`` partition: one ``DatasetRecord`` per dataset name."""

    CONDITIONS = (FIRST_LIVE, NEWER_THAN_LIVE, ONLY_LATEST_LOAD, ONLY_LATEST_REQUEST, RETRY_OWN_REQUEST, UNCHANGED_PAIR)

    def __init__(self, faults: Faults) -> None:
        self.faults = faults
        self.records: dict[str, DatasetRecord] = {}

    def _read(self, name: str) -> DatasetRecord | None:
        record = self.records.get(name)
        return detached(record) if record is not None else None

    def _write(self, record: DatasetRecord) -> DatasetRecord:
        self.records[record.name] = detached(record)
        return record

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
    def note_request(self, name: str, now: float) -> int:
        record = self._read(name) or DatasetRecord(name=name)  # an update creates the item
        record.status, record.load, record.heartbeat = LoadStatus.LOADING, LoadState(), now
        record.requests += 1
        return self._write(record).requests

    @port
    def start_build(self, name: str, request: int, now: float) -> DatasetRecord:
        record = self._read(name)
        if not only_latest_request(record, request):
            raise NotLatestRequest(ONLY_LATEST_REQUEST.rule)
        assert record is not None
        record.planned, record.heartbeat = request, now
        record.builds += 1
        taken = detached(self._write(record))  # ALL_NEW of the first write
        self.faults.point("FakeDatasets.start_build (second write)")  # the real adapter writes twice
        record.status, record.load, record.heartbeat = LoadStatus.LOADING, LoadState(record.builds, Phase.READING), now
        self._write(record)
        return taken

    @port
    def update_load(
        self,
        name: str,
        build: int,
        now: float,
        *,
        phase: Phase | None = None,
        rows_read: int | None = None,
        items_written: int | None = None,
        problems: list[Problem] | None = None,
        report: str | None = None,
    ) -> bool:
        record = self._read(name)
        if not only_latest_load(record, build):
            return False
        assert record is not None
        record.heartbeat = now
        _load_fields(
            record.load, phase=phase, rows_read=rows_read, items_written=items_written, problems=problems, report=report
        )
        self._write(record)
        return True

    @port
    def end_load(
        self,
        name: str,
        build: int | None,
        status: LoadStatus,
        now: float,
        *,
        phase: Phase,
        items_written: int | None = None,
        problems: list[Problem] | None = None,
        report: str | None = None,
    ) -> bool:
        assert status in (LoadStatus.READY, LoadStatus.FAILED)
        record = self._read(name)
        if not (load_without_build(record) if build is None else only_latest_load(record, build)):
            return False
        assert record is not None
        record.status, record.heartbeat = status, now
        _load_fields(record.load, phase=phase, items_written=items_written, problems=problems, report=report)
        self._write(record)
        return True

    @port
    def release_request(self, name: str, request: int) -> bool:
        record = self._read(name)
        if not retry_own_request(record, request):
            return False
        assert record is not None
        record.planned = request - 1
        self._write(record)
        return True

    @port
    def switch_live(
        self, name: str, build: int, *, ranges: int, objects: list[ObjectRef], loaded_at: str, now: float
    ) -> Switched:
        before = self._read(name)  # (one attempt: nothing else writes between the read and the write here)
        if before is None:
            return Switched(Switch.STALE)
        if before.live == build:
            return Switched(Switch.ALREADY_LIVE, before)
        if (before.live is not None and before.live > build) or before.floor >= build:
            return Switched(Switch.STALE, before)
        record = detached(before)
        if before.live is None:
            if not first_live(record, build):
                raise StoreUnavailable(f"the live version of {name!r} kept changing; retry")
            record.previous = None
        else:
            if not newer_than_live(record, before.live, build):
                raise StoreUnavailable(f"the live version of {name!r} kept changing; retry")
            record.previous = before.live
        record.live, record.ranges, record.objects, record.loaded_at = build, ranges, list(objects), loaded_at
        record.live_since, record.retired = now, False
        self._write(record)
        return Switched(Switch.SWITCHED, before)

    @port
    def retire(self, name: str, build: int, now: float) -> DatasetRecord:
        before = self._read(name)
        if not only_latest_load(before, build):
            raise SupersededLoad(ONLY_LATEST_LOAD.rule)
        assert before is not None
        record = detached(before)
        record.retired, record.floor, record.status, record.heartbeat = True, build, LoadStatus.READY, now
        record.load.phase = Phase.RETIRED
        record.live = record.previous = None
        self._write(record)
        return before  # ALL_OLD

    @port
    def keep_live(self, name: str, build: int, now: float) -> bool:
        record = self._read(name)
        if not only_latest_load(record, build):
            return False
        assert record is not None
        record.status, record.heartbeat, record.floor = LoadStatus.READY, now, build
        record.load.phase = Phase.UNCHANGED
        self._write(record)
        return True

    @port
    def rollback(self, name: str) -> DatasetRecord:
        record = self._read(name)
        if record is None or record.retired or record.live is None:
            raise NothingToRollBack(f"dataset {name!r} has no live version")
        if record.previous is None:
            raise NothingToRollBack(f"dataset {name!r} has no previous version to roll back to")
        if not unchanged_pair(record, record.live, record.previous):
            raise StoreUnavailable(f"dataset {name!r} changed during the rollback; run it again")
        record.live, record.previous = record.previous, record.live
        return detached(self._write(record))
