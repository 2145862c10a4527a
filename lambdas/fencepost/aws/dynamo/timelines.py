"""A dataset's history (``fencepost.core.history``): one small item per change of what it serves.

``PK = #h#<dataset>``, ``SK`` = the instant in milliseconds, ``version`` (absent: nothing served from then on),
``gone`` once the version's items are deleted. Events are written in the same transaction as the change they
record (``fencepost.aws.dynamo.serving``), so the history never disagrees with the live pointer. Two changes in
the same millisecond keep the later one, which is what was served from that instant.
"""

from __future__ import annotations

from fencepost.aws.dynamo.client import Table
from fencepost.aws.dynamo.codec import Item
from fencepost.core.history import Event, Timeline, to_millisecond
from fencepost.core.keys import history_pk


def event_item(dataset: str, at: float, version: int | None) -> Item:
    item: Item = {"PK": {"S": history_pk(dataset)}, "SK": {"N": str(round(to_millisecond(at) * 1000))}}
    if version is not None:
        item["version"] = {"N": str(version)}
    return item


def event_of(item: Item) -> Event:
    version = item.get("version")
    gone_at = item.get("gone_at")
    return Event(
        int(item["SK"]["N"]) / 1000,
        None if version is None else int(version["N"]),
        gone=bool(item.get("gone", {}).get("BOOL", False)),
        gone_at=None if gone_at is None else float(gone_at["N"]),
    )


class HistoryTable:
    def __init__(self, table: Table) -> None:
        self.table = table

    def timeline(self, dataset: str, *, consistent: bool = False) -> Timeline:
        """Every event of the dataset (a few dozen bytes each: one Query page holds thousands)."""
        return Timeline(event_of(item) for item in self.table.query_all(history_pk(dataset), consistent=consistent))

    def mark_gone(self, dataset: str, version: int, now: float) -> None:
        """The version's items are to be deleted: its events say so, and since when (each kept, for the instants
        it was served)."""
        for event in self.timeline(dataset, consistent=True).events:
            if event.version == version and not event.gone:
                key = {"PK": {"S": history_pk(dataset)}, "SK": {"N": str(round(event.at * 1000))}}
                self.table.update(key, "SET #gone = :true, #gone_at = :now", {":true": True, ":now": now})
