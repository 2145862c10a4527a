"""A dataset's history (``fencepost.core.versions.history``): one small item per change of what it serves.

``PK = #h#<dataset>``, ``SK`` = the instant in milliseconds, ``version`` (absent: nothing served from then on),
``gone`` once the version's items are deleted, ``changed`` (a build going live: the percent of the IPv4 and IPv6
space it changed, which the window gate sums). Events are written in the same transaction as the change they
record (``fencepost.aws.dynamo.serving``), so the history never disagrees with the live pointer. Two changes in
the same millisecond keep the later one, which is what was served from that instant.

A version built from a dated folder (``fencepost.core.folders.backfill``) is *placed* in the history at its date, in one
transaction with its build record; what became of each dated folder's sources is one item of ``PK = #d#<dataset>``.
"""

from __future__ import annotations

from fencepost.aws.dynamo.builds import build_key
from fencepost.aws.dynamo.client import Condition, Table
from fencepost.aws.dynamo.codec import Item, attribute
from fencepost.aws.dynamo.transactions import Refused, Transaction
from fencepost.core.folders.backfill import Dated, date_instant
from fencepost.core.storage.keys import dated_pk, history_pk
from fencepost.core.versions.history import Event, Timeline, to_millisecond
from fencepost.model import BuildState

PLACED_WHILE_FINALIZED = Condition(
    "a dated build enters the history only while it is being finalized: never once it was abandoned",
    "#state = :finalizing",
)
STILL_THE_FOLDERS = Condition(
    "a dated build enters the history only while its folder's state names it: not once the folder was removed, "
    "or changed and built again",
    "#build = :build",
)


def event_item(
    dataset: str, at: float, version: int | None, *, dated: bool = False, changed: tuple[float, float] | None = None
) -> Item:
    item: Item = {"PK": {"S": history_pk(dataset)}, "SK": {"N": str(round(to_millisecond(at) * 1000))}}
    if version is not None:
        item["version"] = {"N": str(version)}
    if dated:
        item["dated"] = {"BOOL": True}
    if changed is not None:
        item["changed"] = attribute(list(changed))
    return item


def event_of(item: Item) -> Event:
    version = item.get("version")
    gone_at = item.get("gone_at")
    changed = item.get("changed")
    return Event(
        int(item["SK"]["N"]) / 1000,
        None if version is None else int(version["N"]),
        gone=bool(item.get("gone", {}).get("BOOL", False)),
        gone_at=None if gone_at is None else float(gone_at["N"]),
        dated=bool(item.get("dated", {}).get("BOOL", False)),
        changed=None if changed is None else (float(changed["L"][0]["N"]), float(changed["L"][1]["N"])),
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

    def place(self, dataset: str, build: int, date: str, now: float) -> bool:
        """Put dated ``build`` in the history at its ``date`` (replacing what was placed there), and mark it
        switched: False when it was abandoned meanwhile, or its folder no longer names it."""
        transaction = Transaction(self.table)
        transaction.put(event_item(dataset, date_instant(date), build, dated=True))
        values = {":now": now, ":finalizing": BuildState.FINALIZING}
        transaction.update(build_key(dataset, build), "SET #switched = :now", values, condition=PLACED_WHILE_FINALIZED)
        transaction.update(
            _dated_key(dataset, date), "SET #placed = :now", {":now": now, ":build": build}, condition=STILL_THE_FOLDERS
        )
        try:
            transaction.commit()
        except Refused:
            return False
        return True

    def dated(self, dataset: str) -> dict[str, Dated]:
        """What became of each dated folder's sources, by date."""
        found = {}
        for item in self.table.query_all(dated_pk(dataset), consistent=True):
            build, reason = item.get("build"), item.get("reason")
            state = Dated(
                item["date"]["S"],
                item["sources"]["S"],
                None if build is None else int(build["N"]),
                item["status"]["S"],
                None if reason is None else reason["S"],
            )
            found[state.date] = state
        return found

    def put_dated(self, dataset: str, state: Dated) -> None:
        item: Item = {**_dated_key(dataset, state.date), "date": {"S": state.date}, "sources": {"S": state.sources}}
        item["status"] = {"S": state.status}
        if state.build is not None:
            item["build"] = {"N": str(state.build)}
        if state.reason is not None:
            item["reason"] = {"S": state.reason[:400]}
        self.table.put(item)

    def forget_dated(self, dataset: str, date: str) -> None:
        self.table.delete(_dated_key(dataset, date))


def _dated_key(dataset: str, date: str) -> Item:
    return {"PK": {"S": dated_pk(dataset)}, "SK": {"N": str(round(date_instant(date)))}}
