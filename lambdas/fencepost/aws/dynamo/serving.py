"""What is served: dataset records as read, the live pointer lookups read, and the transitions that change what is
served (going live, rolling back, retiring).

Each dataset has a small live pointer (``PK = #l#<dataset>``, ``fencepost.core.storage.keys.live_pk``) beside its record
in ``#datasets``: lookups read the pointer (eventually consistent, a few dozen bytes), listings read the records, and
neither reads the other's partition. Every transition of what is served changes the record and the pointer in
one transaction, with the event that records it in the dataset's history (``fencepost.aws.dynamo.timelines``), so
they never disagree. A table written before pointers existed has records only: a dataset
without a pointer is read from its record until its next transition writes one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fencepost.aws.dynamo.builds import build_key
from fencepost.aws.dynamo.client import Condition, Table
from fencepost.aws.dynamo.codec import Item, attribute, decode, encode
from fencepost.aws.dynamo.timelines import HistoryTable, event_item
from fencepost.aws.dynamo.transactions import Refused, Transaction
from fencepost.core.storage.keys import DATASETS_PK, LIVE_POINTER_SK, VERSION_HEADER_SK, dataset_id, live_pk, version_pk
from fencepost.core.versions.history import Timeline
from fencepost.errors import NothingToRollBack, StoreUnavailable, SupersededLoad
from fencepost.model import (
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

FIRST_LIVE = Condition(
    "a first version goes live only if none is live and it is above the floor set when the dataset retired",
    "attribute_not_exists(#live) AND (attribute_not_exists(#floor) OR #floor < :build)",
)
NEWER_THAN_LIVE = Condition(
    "a version goes live only if it replaces the live version that was read, and it is above the floor",
    "#live = :old AND (attribute_not_exists(#floor) OR #floor < :build)",
)
BEING_FINALIZED = Condition(
    "a build goes live only while it is being finalized: never once it was abandoned",
    "#state = :finalizing",
)
UNCHANGED_PAIR = Condition(
    "a rollback swaps the live and previous versions only if neither changed since they were read",
    "#live = :live AND #previous = :previous",
)
RETIRE_RULE = "only the latest load retires the dataset, and only while what is served is what it read"

POINTER_PROJECTION = "PK, #version, #live_since"  # what a lookup needs: a small read (a tombstone has only PK)


def record_key(name: str) -> Item:
    return {"PK": {"S": DATASETS_PK}, "SK": {"N": str(dataset_id(name))}}


def pointer_key(name: str) -> Item:
    return {"PK": {"S": live_pk(name)}, "SK": {"N": str(LIVE_POINTER_SK)}}


def pointer_item(name: str, pointer: LivePointer | None) -> Item:
    """The pointer item: the live version and since when; with no version when nothing is served (retired)."""
    item = pointer_key(name)
    if pointer is not None:
        item["version"] = {"N": str(pointer.version)}
        if pointer.live_since is not None:
            item["live_since"] = attribute(pointer.live_since)
    return item


def _record(item: Item) -> DatasetRecord:
    return decode(DatasetRecord, item)


def _dates(header: VersionHeader | None) -> tuple[tuple[str, Any], ...]:
    """The record's fields of a version's dates (``built_at``, ``data_date``) from its header; None: removed."""
    if header is None:
        return ("built_at", None), ("data_date", None)
    return ("built_at", header.created_at or None), ("data_date", header.data_date)


def _served_as(name: str, value: int | None, values: dict[str, Any]) -> str:
    """A condition that attribute ``name`` still holds ``value`` (or is absent, for None)."""
    if value is None:
        return f"attribute_not_exists(#{name})"
    values[f":{name}"] = value
    return f"#{name} = :{name}"


class ServingTable:
    """The ``#datasets`` partition (one record per dataset) and the ``#l#<dataset>`` live pointers."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.history = HistoryTable(table)

    def timeline(self, name: str, *, consistent: bool = False) -> Timeline:
        """Which version was served when (``fencepost.core.versions.history``)."""
        return self.history.timeline(name, consistent=consistent)

    def mark_gone(self, name: str, version: int, now: float) -> None:
        self.history.mark_gone(name, version, now)

    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        item = self.table.get(record_key(name), consistent=consistent)
        if item is None or item.get("name", {}).get("S") != name:  # (a hash collision is another dataset)
            return None
        return _record(item)

    def all(self) -> list[DatasetRecord]:
        records = [_record(item) for item in self.table.query_all(DATASETS_PK, consistent=True)]
        return sorted(records, key=lambda record: record.name)

    def put(self, record: DatasetRecord) -> None:
        self.table.put(encode(record, PK=DATASETS_PK, SK=dataset_id(record.name)))

    def get_live(self, name: str) -> LivePointer | None:
        """What lookups read: the live pointer (eventually consistent); None when nothing is served.

        A dataset without a pointer (its table was written before pointers existed) is read from its record.
        """
        response = self.table.call(
            "get_item",
            Key=pointer_key(name),
            ProjectionExpression=POINTER_PROJECTION,
            ExpressionAttributeNames={"#version": "version", "#live_since": "live_since"},
        )
        item = response.get("Item")
        if item is None:
            return LivePointer.of(self.get(name))
        if "version" not in item:
            return None  # retired
        return decode(LivePointer, item, dataset=name)

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
        """Make ``build`` the live version if it is newer than the live one and still being finalized: the record,
        the pointer and the build record (``switched``) change in one transaction, with the history's event (which
        keeps what the build ``changed``). The record takes the version's dates from its header."""
        header = self._header(name, build)
        dates = _dates(header)
        for _ in range(10):
            before = self.get(name, consistent=True)
            if before is None:
                return Switched(Switch.STALE)
            if before.live == build:
                return Switched(Switch.ALREADY_LIVE, before)
            if (before.live is not None and before.live > build) or before.floor >= build:
                return Switched(Switch.STALE, before)
            values: dict[str, Any] = {":build": build, ":ranges": ranges, ":objects": objects}
            values.update({":loaded_at": loaded_at, ":now": now, ":false": False})
            sets = "#live = :build, #ranges = :ranges, #objects = :objects, #loaded_at = :loaded_at, "
            sets += "#live_since = :now, #retired = :false"
            removes = ["#held"]
            for field, value in (("settings", settings), *dates):
                if value is None:
                    removes.append(f"#{field}")
                else:
                    sets, values[f":{field}"] = f"{sets}, #{field} = :{field}", value
            if before.live is None:
                condition = FIRST_LIVE
                removes.append("#previous")
            else:
                condition, values[":old"] = NEWER_THAN_LIVE, before.live
                sets += ", #previous = :old"
            transaction = Transaction(self.table)
            transaction.update(record_key(name), f"SET {sets} REMOVE {', '.join(removes)}", values, condition=condition)
            transaction.put(pointer_item(name, LivePointer(name, build, now)))
            transaction.put(event_item(name, now, build, changed=changed))
            transaction.update(
                build_key(name, build),
                "SET #switched = :now",
                {":now": now, ":finalizing": BuildState.FINALIZING},
                condition=BEING_FINALIZED,
            )
            try:
                transaction.commit()
            except Refused as refused:
                if refused.condition is BEING_FINALIZED:
                    return Switched(Switch.ABANDONED, before)
                continue  # the live version changed between the read and the write: read again
            return Switched(Switch.SWITCHED, before)
        raise StoreUnavailable(f"the live version of {name!r} kept changing; retry")

    def retire(self, name: str, build: int, now: float) -> DatasetRecord:
        """The folder is empty: nothing is served any more, and no build up to ``build`` may go live.

        Returns the record as it was; raises ``SupersededLoad`` when a newer load has taken over.
        """
        for _ in range(10):
            before = self.get(name, consistent=True)
            if before is None or before.load.version != build:
                raise SupersededLoad(RETIRE_RULE)
            values: dict[str, Any] = {":true": True, ":build": build, ":ready": LoadStatus.READY}
            values.update({":retired": Phase.RETIRED, ":now": now})
            served = f"{_served_as('live', before.live, values)} AND {_served_as('previous', before.previous, values)}"
            condition = Condition(RETIRE_RULE, f"#load.#version = :build AND {served}")
            transaction = Transaction(self.table)
            transaction.update(
                record_key(name),
                "SET #retired = :true, #floor = :build, #status = :ready, #load.#phase = :retired, #heartbeat = :now "
                "REMOVE #live, #previous, #held",
                values,
                condition=condition,
            )
            transaction.put(pointer_item(name, None))
            if before.live is not None and not before.retired:
                transaction.put(event_item(name, now, None))
            try:
                transaction.commit()
            except Refused:
                continue  # read again: a newer load took over, or a version went live meanwhile
            return before
        raise StoreUnavailable(f"the record of {name!r} kept changing; retry")

    def rollback(self, name: str, now: float) -> DatasetRecord:
        """Serve the previous version again (running it again rolls forward); returns the record after.

        The record then describes the version it serves (objects, ranges, load time and settings from that
        version's header), the live pointer follows, and, when an older version was rolled back to, the sources
        rolled away from are held: a folder that still holds them is no change, and builds nothing.
        """
        record = self.get(name, consistent=True)
        if record is None or record.retired or record.live is None:
            raise NothingToRollBack(f"dataset {name!r} has no live version")
        if record.previous is None:
            raise NothingToRollBack(f"dataset {name!r} has no previous version to roll back to")
        target = self._header(name, record.previous)
        if target is None:
            raise NothingToRollBack(f"version {record.previous} of dataset {name!r} is no longer stored")
        held = record.sources if record.previous < record.live else None
        after = dataclasses.replace(
            record,
            live=record.previous,
            previous=record.live,
            objects=list(target.objects),
            ranges=target.ranges,
            loaded_at=target.created_at,
            live_since=now,
            settings=target.settings,
            held=held,
            built_at=target.created_at or None,
            data_date=target.data_date,
        )
        values: dict[str, Any] = {":previous": record.previous, ":live": record.live, ":objects": after.objects}
        values.update({":ranges": after.ranges, ":loaded_at": after.loaded_at, ":now": now})
        sets = "#live = :previous, #previous = :live, #objects = :objects, #ranges = :ranges, "
        sets += "#loaded_at = :loaded_at, #live_since = :now"
        removes = []
        for field, value in (("settings", after.settings), ("held", held), *_dates(target)):
            if value is None:
                removes.append(f"#{field}")
            else:
                sets, values[f":{field}"] = f"{sets}, #{field} = :{field}", value
        expression = f"SET {sets}" + (f" REMOVE {', '.join(removes)}" if removes else "")
        transaction = Transaction(self.table)
        transaction.update(record_key(name), expression, values, condition=UNCHANGED_PAIR)
        transaction.put(pointer_item(name, LivePointer(name, record.previous, now)))
        transaction.put(event_item(name, now, record.previous))
        try:
            transaction.commit()
        except Refused:
            raise StoreUnavailable(f"dataset {name!r} changed during the rollback; run it again") from None
        return after

    def _header(self, name: str, version: int) -> VersionHeader | None:
        item = self.table.get({"PK": {"S": version_pk(name, version)}, "SK": {"N": str(VERSION_HEADER_SK)}})
        return decode(VersionHeader, item) if item else None
