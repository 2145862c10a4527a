"""Dataset records in memory, with the transitions of ``fencepost.aws.dynamo.datasets.DatasetTable``: a load's life
here, what is served in ``tests.fakes.serving``.

Each transition checks the rule its DynamoDB twin puts in its condition expression (the predicate beside each
named ``Condition`` below), then applies the same update; a refusal has the same outcome (``False``, a typed
result or the same named conflict). Records are deep-copied on the way in and out, as a table would.
"""

from __future__ import annotations

from fencepost.aws.dynamo.datasets import (
    HOLD_READ,
    ONLY_LATEST_LOAD,
    ONLY_LATEST_REQUEST,
    RETRY_OWN_REQUEST,
    STILL_PLANNED,
)
from fencepost.errors import NotLatestRequest
from fencepost.model import DatasetRecord, DiffSummary, LoadState, LoadStatus, Phase, Problem
from tests.fakes.kernel import detached, port
from tests.fakes.serving import FakeServing, loading_progress, only_latest_load


def only_latest_request(record: DatasetRecord | None, request: int) -> bool:
    """ONLY_LATEST_REQUEST: ``#requests = :request AND (attribute_not_exists(#planned) OR #planned < :request)``."""
    return record is not None and record.requests == request and record.planned < request


def load_without_build(record: DatasetRecord | None) -> bool:
    """LOAD_WITHOUT_BUILD: ``attribute_type(#load.#version, :null)``."""
    return record is not None and record.load.version is None


def still_planned(record: DatasetRecord | None, request: int, build: int) -> bool:
    """STILL_PLANNED: ``#planned = :request AND #builds = :build``."""
    return record is not None and record.planned == request and record.builds == build


def hold_read(record: DatasetRecord | None, build: int, held: str) -> bool:
    """HOLD_READ: ``#load.#version = :build AND #held = :held``."""
    return record is not None and record.load.version == build and record.held == held


def retry_own_request(record: DatasetRecord | None, request: int) -> bool:
    """RETRY_OWN_REQUEST: ``#planned = :request``."""
    return record is not None and record.planned == request


def _load_fields(
    load: LoadState,
    *,
    phase: Phase | None = None,
    rows_read: int | None = None,
    items_written: int | None = None,
    items: int | None = None,
    problems: list[Problem] | None = None,
    report: str | None = None,
    diff: DiffSummary | None = None,
) -> None:
    """``SET #load.#<field> = :<field>`` for each field given (``_given`` leaves out the None ones)."""
    if phase is not None:
        load.phase = phase
    if rows_read is not None:
        load.rows_read = rows_read
    if items_written is not None:
        load.items_written = items_written
    if items is not None:
        load.items = items
    if problems is not None:
        load.problems = list(problems)
    if report is not None:
        load.report = report
    if diff is not None:
        load.diff = diff


class FakeDatasets(FakeServing):
    """The ``#datasets`` partition: one ``DatasetRecord`` per dataset name (and, through ``FakeServing``, what is
    served)."""

    CONDITIONS = (
        *FakeServing.CONDITIONS,
        HOLD_READ,
        ONLY_LATEST_LOAD,
        ONLY_LATEST_REQUEST,
        RETRY_OWN_REQUEST,
        STILL_PLANNED,
    )

    @port
    def accept(self, name: str, sources: str) -> bool:
        record = self._read(name)
        if record is None:
            return False
        record.accepted = sources
        self._write(record)
        return True

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
        record = self._read(name)
        if not still_planned(record, request, taken.builds):
            raise NotLatestRequest(STILL_PLANNED.rule)
        assert record is not None
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
        items: int | None = None,
        problems: list[Problem] | None = None,
        report: str | None = None,
        diff: DiffSummary | None = None,
    ) -> bool:
        record = self._read(name)
        if not loading_progress(record, build):
            return False
        assert record is not None
        record.heartbeat = now
        load = record.load
        _load_fields(load, phase=phase, rows_read=rows_read, items_written=items_written, problems=problems)
        _load_fields(load, report=report, diff=diff, items=items)
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
    def release_hold(self, name: str, build: int, held: str) -> bool:
        record = self._read(name)
        if not hold_read(record, build, held):
            return False
        assert record is not None
        record.held = None
        self._write(record)
        return True

    @port
    def set_retention(self, name: str, days: int) -> None:
        record = self._read(name)
        if record is not None:
            record.retain_days = days
            self._write(record)

    def set_max_age(self, name: str, seconds: int) -> None:
        record = self._read(name)
        if record is not None:
            record.max_age = seconds
            self._write(record)

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
