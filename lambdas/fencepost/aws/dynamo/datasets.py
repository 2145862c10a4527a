"""Dataset records through a load's life. Each transition is one conditional write; its rule is written beside
its condition, and a refusal is a typed outcome or a named conflict, never a bare ``False``. What is served (going
live, rolling back, retiring, and the live pointer) is in ``serving``.
"""

from __future__ import annotations

from typing import Any

from fencepost.aws.dynamo.client import Condition, ConditionFailed
from fencepost.aws.dynamo.codec import decode
from fencepost.aws.dynamo.serving import ServingTable, record_key
from fencepost.core.sinks.state import SinkState
from fencepost.errors import NotLatestRequest
from fencepost.model import DatasetRecord, DiffSummary, LoadState, LoadStatus, Phase, Problem

ONLY_LATEST_REQUEST = Condition(
    "only the latest change to a folder builds, and only once",
    "#requests = :request AND (attribute_not_exists(#planned) OR #planned < :request)",
)
RECORD_EXISTS = Condition("a setting is kept only on a dataset's existing record", "attribute_exists(#name)")
ONLY_LATEST_LOAD = Condition(
    "only the latest load reports progress, ends, or retires the dataset",
    "#load.#version = :build",
)
LOADING_PROGRESS = Condition(
    "only the latest load reports progress, and only while it is loading (a late report never undoes its end)",
    "#load.#version = :build AND #status = :loading",
)
LOAD_WITHOUT_BUILD = Condition(
    "a load that never got a build number (its build message was lost) is ended only while it is the latest",
    "attribute_type(#load.#version, :null)",
)
RETRY_OWN_REQUEST = Condition(
    "an attempt that failed on a passing fault lets its own request be planned again, and no other",
    "#planned = :request",
)
HOLD_READ = Condition(
    "the latest load ends a rollback's hold (its folder changed since), and only the hold it read",
    "#load.#version = :build AND #held = :held",
)
STILL_PLANNED = Condition(
    "a build number is given its load only while its request is the one planned and no newer build was taken",
    "#planned = :request AND #builds = :build",
)

_key = record_key


def _record(item: dict[str, Any]) -> DatasetRecord:
    return decode(DatasetRecord, item)


class DatasetTable(ServingTable):
    """The ``#datasets`` partition: one record per dataset (and, through ``ServingTable``, what is served)."""

    # -- a load's life -----------------------------------------------------------------------------------------

    def note_request(self, name: str, now: float) -> int:
        """Record a change in the dataset's folder; returns its request number (a burst keeps only the last)."""
        attributes = self.table.update(
            _key(name),
            "SET #name = :name, #status = :loading, #load = :load, #heartbeat = :now ADD #requests :one",
            {":name": name, ":loading": LoadStatus.LOADING, ":load": LoadState(), ":now": now, ":one": 1},
            returns="ALL_NEW",
        )
        return _record(attributes).requests

    def start_build(self, name: str, request: int, now: float) -> DatasetRecord:
        """Take the next build number (``record.builds``) for ``request``; raises ``NotLatestRequest``."""
        try:
            attributes = self.table.update(
                _key(name),
                "SET #planned = :request, #heartbeat = :now ADD #builds :one",
                {":request": request, ":now": now, ":one": 1},
                condition=ONLY_LATEST_REQUEST,
                returns="ALL_NEW",
            )
        except ConditionFailed:
            raise NotLatestRequest(ONLY_LATEST_REQUEST.rule) from None
        record = _record(attributes)
        load = LoadState(version=record.builds, phase=Phase.READING)
        values = {":loading": LoadStatus.LOADING, ":load": load, ":now": now, ":request": request}
        values[":build"] = record.builds
        expression = "SET #status = :loading, #load = :load, #heartbeat = :now"
        if not self.table.applied(_key(name), expression, values, STILL_PLANNED):
            raise NotLatestRequest(STILL_PLANNED.rule)  # a newer request took over between the two writes
        return record

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
        """Progress of the latest load (the fields given); False when a newer load has taken over the record or the
        load has ended (a chunk counted before the last one may report after the load ended READY)."""
        sets, values = _load_fields(
            phase=phase,
            rows_read=rows_read,
            items_written=items_written,
            items=items,
            problems=problems,
            report=report,
            diff=diff,
        )
        values.update({":now": now, ":build": build, ":loading": LoadStatus.LOADING})
        return self.table.applied(_key(name), f"SET #heartbeat = :now{sets}", values, LOADING_PROGRESS)

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
        """Set the latest load's final status (READY or FAILED), if it is still the latest; False otherwise.

        ``build`` None ends a load that never got a build number.
        """
        assert status in (LoadStatus.READY, LoadStatus.FAILED)
        sets, values = _load_fields(phase=phase, items_written=items_written, problems=problems, report=report)
        values.update({":status": status, ":now": now})
        if build is None:
            condition, values[":null"] = LOAD_WITHOUT_BUILD, "NULL"
        else:
            condition, values[":build"] = ONLY_LATEST_LOAD, build
        return self.table.applied(_key(name), f"SET #status = :status, #heartbeat = :now{sets}", values, condition)

    def release_request(self, name: str, request: int) -> bool:
        """Let ``request`` be planned again (its attempt failed on a passing fault); False if another took over."""
        values = {":before": request - 1, ":request": request}
        return self.table.applied(_key(name), "SET #planned = :before", values, RETRY_OWN_REQUEST)

    def release_hold(self, name: str, build: int, held: str) -> bool:
        """The folder no longer holds the sources a rollback moved away from: the rollback holds no more (the
        next time the folder holds them, they are built again). False when a newer load or rollback took over."""
        values = {":build": build, ":held": held}
        return self.table.applied(_key(name), "REMOVE #held", values, HOLD_READ)

    def keep_live(self, name: str, build: int, now: float) -> bool:
        """The folder holds the live version's sources (or those a rollback holds): the load ends READY, and no
        build up to ``build`` may go live any more (an older build still writing would serve other objects).

        False when a newer load has taken over the record.
        """
        values = {":ready": LoadStatus.READY, ":unchanged": Phase.UNCHANGED, ":now": now, ":build": build}
        expression = "SET #status = :ready, #load.#phase = :unchanged, #heartbeat = :now, #floor = :build"
        return self.table.applied(_key(name), expression, values, ONLY_LATEST_LOAD)

    def accept(self, name: str, sources: str) -> bool:
        """Let the build of ``sources`` (a fingerprint, ``core.folders.fingerprint``) past the folder's gates, once;
        False when there is no such dataset."""
        return self.table.applied(_key(name), "SET #accepted = :sources", {":sources": sources}, RECORD_EXISTS)

    def set_retention(self, name: str, days: int) -> None:
        """The folder's ``retain_days`` as read by its latest load: deletions decide by it (``loading.cleanup``)."""
        self.table.applied(_key(name), "SET #retain_days = :days", {":days": days}, RECORD_EXISTS)

    def set_max_age(self, name: str, seconds: int) -> None:
        """The folder's ``max_age`` as read by its latest load (0: unset): listings show staleness by it."""
        self.table.applied(_key(name), "SET #max_age = :seconds", {":seconds": seconds}, RECORD_EXISTS)

    def set_sinks(self, name: str, states: list[SinkState]) -> None:
        """What the latest push found of each of the folder's sinks (``core.sinks.state``)."""
        self.table.applied(_key(name), "SET #sinks = :states", {":states": states}, RECORD_EXISTS)


def _load_fields(**fields: object) -> tuple[str, dict[str, Any]]:
    """``SET`` clauses for the load's fields that are given (not None), and their values."""
    given = {key: value for key, value in fields.items() if value is not None}
    return "".join(f", #load.#{key} = :{key}" for key in given), {f":{key}": value for key, value in given.items()}
