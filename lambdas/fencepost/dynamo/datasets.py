"""Dataset records and their transitions. Each transition is one conditional write; its rule is written beside
its condition, and a refusal is a typed outcome or a named conflict, never a bare ``False``."""

from __future__ import annotations

from typing import Any

from fencepost.core.keys import DATASETS_PK, dataset_id
from fencepost.dynamo.client import Condition, ConditionFailed, Table
from fencepost.dynamo.codec import Item, decode, encode
from fencepost.dynamo.errors import NothingToRollBack, NotLatestRequest, StoreUnavailable, SupersededLoad
from fencepost.model import DatasetRecord, LoadState, LoadStatus, ObjectRef, Phase, Problem, Switch, Switched

ONLY_LATEST_REQUEST = Condition(
    "only the latest change to a folder builds, and only once",
    "#requests = :request AND (attribute_not_exists(#planned) OR #planned < :request)",
)
ONLY_LATEST_LOAD = Condition(
    "only the latest load reports progress, ends, or retires the dataset",
    "#load.#version = :build",
)
LOAD_WITHOUT_BUILD = Condition(
    "a load that never got a build number (its build message was lost) is ended only while it is the latest",
    "attribute_type(#load.#version, :null)",
)
RETRY_OWN_REQUEST = Condition(
    "an attempt that failed on a passing fault lets its own request be planned again, and no other",
    "#planned = :request",
)
FIRST_LIVE = Condition(
    "a first version goes live only if none is live and it is above the floor set when the dataset retired",
    "attribute_not_exists(#live) AND (attribute_not_exists(#floor) OR #floor < :build)",
)
NEWER_THAN_LIVE = Condition(
    "a version goes live only if it replaces the live version that was read, and it is above the floor",
    "#live = :old AND (attribute_not_exists(#floor) OR #floor < :build)",
)
UNCHANGED_PAIR = Condition(
    "a rollback swaps the live and previous versions only if neither changed since they were read",
    "#live = :live AND #previous = :previous",
)


def _key(name: str) -> Item:
    return {"PK": {"S": DATASETS_PK}, "SK": {"N": str(dataset_id(name))}}


def _record(item: Item) -> DatasetRecord:
    return decode(DatasetRecord, item)


class DatasetTable:
    """The ``#datasets`` partition: one record per dataset."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        item = self.table.get(_key(name), consistent=consistent)
        if item is None or item.get("name", {}).get("S") != name:  # (a hash collision is another dataset)
            return None
        return _record(item)

    def all(self) -> list[DatasetRecord]:
        records = [_record(item) for item in self.table.query_all(DATASETS_PK, consistent=True)]
        return sorted(records, key=lambda record: record.name)

    def put(self, record: DatasetRecord) -> None:
        self.table.put(encode(record, PK=DATASETS_PK, SK=dataset_id(record.name)))

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
        self.table.update(
            _key(name),
            "SET #status = :loading, #load = :load, #heartbeat = :now",
            {":loading": LoadStatus.LOADING, ":load": load, ":now": now},
        )
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
        problems: list[Problem] | None = None,
        report: str | None = None,
    ) -> bool:
        """Progress of the latest load (the fields given); False when a newer load has taken over the record."""
        sets, values = _load_fields(
            phase=phase, rows_read=rows_read, items_written=items_written, problems=problems, report=report
        )
        values.update({":now": now, ":build": build})
        return self.table.applied(_key(name), f"SET #heartbeat = :now{sets}", values, ONLY_LATEST_LOAD)

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

    # -- what is served ----------------------------------------------------------------------------------------

    def switch_live(
        self, name: str, build: int, *, ranges: int, objects: list[ObjectRef], loaded_at: str, now: float
    ) -> Switched:
        """Make ``build`` the live version, in one conditional write that succeeds only if it is newer."""
        for _ in range(10):
            before = self.get(name, consistent=True)
            if before is None:
                return Switched(Switch.STALE)
            if before.live == build:
                return Switched(Switch.ALREADY_LIVE, before)
            if (before.live is not None and before.live > build) or before.floor >= build:
                return Switched(Switch.STALE, before)
            values = {":build": build, ":ranges": ranges, ":objects": objects, ":loaded_at": loaded_at, ":now": now}
            values[":false"] = False
            sets = "#live = :build, #ranges = :ranges, #objects = :objects, #loaded_at = :loaded_at, "
            sets += "#live_since = :now, #retired = :false"
            if before.live is None:
                expression, condition = f"SET {sets} REMOVE #previous", FIRST_LIVE
            else:
                expression, condition, values[":old"] = f"SET {sets}, #previous = :old", NEWER_THAN_LIVE, before.live
            try:
                self.table.update(_key(name), expression, values, condition=condition)
            except ConditionFailed:
                continue  # the live version changed between the read and the write: read again
            return Switched(Switch.SWITCHED, before)
        raise StoreUnavailable(f"the live version of {name!r} kept changing; retry")

    def retire(self, name: str, build: int, now: float) -> DatasetRecord:
        """The folder is empty: nothing is served any more, and no build up to ``build`` may go live.

        Returns the record as it was; raises ``SupersededLoad`` when a newer load has taken over.
        """
        values = {":true": True, ":build": build, ":ready": LoadStatus.READY, ":retired": Phase.RETIRED, ":now": now}
        try:
            attributes = self.table.update(
                _key(name),
                "SET #retired = :true, #floor = :build, #status = :ready, #load.#phase = :retired, #heartbeat = :now "
                "REMOVE #live, #previous",
                values,
                condition=ONLY_LATEST_LOAD,
                returns="ALL_OLD",
            )
        except ConditionFailed:
            raise SupersededLoad(ONLY_LATEST_LOAD.rule) from None
        return _record(attributes)

    def keep_live(self, name: str, build: int, now: float) -> bool:
        """The folder holds the live version's objects: the load ends READY, and no build up to ``build`` may go
        live any more (an older build still writing would serve objects the folder no longer holds).

        False when a newer load has taken over the record.
        """
        values = {":ready": LoadStatus.READY, ":unchanged": Phase.UNCHANGED, ":now": now, ":build": build}
        expression = "SET #status = :ready, #load.#phase = :unchanged, #heartbeat = :now, #floor = :build"
        return self.table.applied(_key(name), expression, values, ONLY_LATEST_LOAD)

    def rollback(self, name: str) -> DatasetRecord:
        """Swap the live and the previous version (running it again rolls forward)."""
        record = self.get(name, consistent=True)
        if record is None or record.retired or record.live is None:
            raise NothingToRollBack(f"dataset {name!r} has no live version")
        if record.previous is None:
            raise NothingToRollBack(f"dataset {name!r} has no previous version to roll back to")
        try:
            attributes = self.table.update(
                _key(name),
                "SET #live = :previous, #previous = :live",
                {":previous": record.previous, ":live": record.live},
                condition=UNCHANGED_PAIR,
                returns="ALL_NEW",
            )
        except ConditionFailed:
            raise StoreUnavailable(f"dataset {name!r} changed during the rollback; run it again") from None
        return _record(attributes)


def _load_fields(**fields: object) -> tuple[str, dict[str, Any]]:
    """``SET`` clauses for the load's fields that are given (not None), and their values."""
    given = {key: value for key, value in fields.items() if value is not None}
    return "".join(f", #load.#{key} = :{key}" for key in given), {f":{key}": value for key, value in given.items()}
