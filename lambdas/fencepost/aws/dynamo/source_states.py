"""What each source's last check found (``core.sources.schedule.SourceState``): one item a dataset in the ``#sources``
partition, its state as JSON (validators, the objects each download wrote, the counts), written by the fetch function
and read by the lookup function's dataset listings (one Query for all of them). The same partition holds the lease of
the sources' rounds (``fencepost.sources.rounds``): one item at ``SK = -1`` (a dataset's is never negative), taken
by a conditional put, given back by a conditional delete; and at ``SK = -2`` what the rounds announced as change
events (``fencepost.sources.announcing``)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Final

from fencepost.aws.dynamo.client import ConditionFailed, Table
from fencepost.aws.dynamo.codec import Item
from fencepost.core.sources.schedule import SourceState
from fencepost.core.storage.keys import SOURCES_PK, dataset_id


class SourceStateTable:
    def __init__(self, table: Table) -> None:
        self.table = table

    def source_state(self, dataset: str) -> SourceState | None:
        item = self.table.get(_key(dataset), consistent=True)
        return None if item is None else _state(item)

    def source_states(self) -> dict[str, SourceState]:
        """Every dataset's, by name."""
        items = self.table.query_all(SOURCES_PK, consistent=True)
        return {item["name"]["S"]: _state(item) for item in items if "state" in item}  # (not the lease)

    def put_source_state(self, dataset: str, state: SourceState) -> None:
        document = json.dumps(state.to_json(), separators=(",", ":"))
        self.table.put({**_key(dataset), "name": {"S": dataset}, "state": {"S": document}})

    def forget_source_state(self, dataset: str) -> None:
        """A folder that no longer names a source: its state goes (``GET /datasets/{name}`` shows none)."""
        self.table.delete(_key(dataset))

    def announced(self) -> dict[str, str]:
        """What the rounds announced (``fencepost.sources.announcing``): keys to tokens."""
        item = self.table.get(ANNOUNCED_KEY, consistent=True)
        return {} if item is None else dict(json.loads(item["announced"]["S"]))

    def keep_announced(self, kept: Mapping[str, str]) -> None:
        document = json.dumps(dict(sorted(kept.items())), separators=(",", ":"))
        self.table.put({**ANNOUNCED_KEY, "announced": {"S": document}})

    def take_round(self, holder: str, now: int, until: int) -> bool:
        try:
            self.table.call(
                "put_item",
                Item={**LEASE_KEY, "holder": {"S": holder}, "until": {"N": str(until)}},
                ConditionExpression="attribute_not_exists(#holder) OR #until < :now",
                ExpressionAttributeNames={"#holder": "holder", "#until": "until"},
                ExpressionAttributeValues={":now": {"N": str(now)}},
            )
        except ConditionFailed:
            return False
        return True

    def end_round(self, holder: str) -> None:
        with contextlib.suppress(ConditionFailed):  # it expired and another round took it: that one's now
            self.table.call(
                "delete_item",
                Key=LEASE_KEY,
                ConditionExpression="#holder = :holder",
                ExpressionAttributeNames={"#holder": "holder"},
                ExpressionAttributeValues={":holder": {"S": holder}},
            )


LEASE_KEY: Final[Item] = {"PK": {"S": SOURCES_PK}, "SK": {"N": "-1"}}
ANNOUNCED_KEY: Final[Item] = {"PK": {"S": SOURCES_PK}, "SK": {"N": "-2"}}  # what the rounds announced


def _key(dataset: str) -> Item:
    return {"PK": {"S": SOURCES_PK}, "SK": {"N": str(dataset_id(dataset))}}


def _state(item: Item) -> SourceState:
    return SourceState.from_json(json.loads(item["state"]["S"]))
