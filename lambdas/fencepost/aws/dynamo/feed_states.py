"""What each source's last check found (``core.feeds.schedule.SourceState``): one item a dataset in the ``#sources``
partition, its state as JSON (validators, the objects each download wrote, the counts), written by the fetch function
and read by the lookup function's dataset listings (one Query for all of them)."""

from __future__ import annotations

import json

from fencepost.aws.dynamo.client import Table
from fencepost.aws.dynamo.codec import Item
from fencepost.core.feeds.schedule import SourceState
from fencepost.core.keys import SOURCES_PK, dataset_id


class SourceStateTable:
    def __init__(self, table: Table) -> None:
        self.table = table

    def source_state(self, dataset: str) -> SourceState | None:
        item = self.table.get(_key(dataset), consistent=True)
        return None if item is None else _state(item)

    def source_states(self) -> dict[str, SourceState]:
        """Every dataset's, by name."""
        return {item["name"]["S"]: _state(item) for item in self.table.query_all(SOURCES_PK, consistent=True)}

    def put_source_state(self, dataset: str, state: SourceState) -> None:
        document = json.dumps(state.to_json(), separators=(",", ":"))
        self.table.put({**_key(dataset), "name": {"S": dataset}, "state": {"S": document}})

    def forget_source_state(self, dataset: str) -> None:
        """A folder that no longer names a source: its state goes (``GET /datasets/{name}`` shows none)."""
        self.table.delete(_key(dataset))


def _key(dataset: str) -> Item:
    return {"PK": {"S": SOURCES_PK}, "SK": {"N": str(dataset_id(dataset))}}


def _state(item: Item) -> SourceState:
    return SourceState.from_json(json.loads(item["state"]["S"]))
