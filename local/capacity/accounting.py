"""DynamoDB requests, as the JSON protocol carries them, accounted on the capacity model of their table.

``Tables`` holds one ``TableModel`` per table (created by ``CreateTable`` through the front, or first seen), knows
each table's key schema and indexes, and says for each request what DynamoDB would: which items are written (the
rest unprocessed), or that the call is throttled, and why. Sizes are DynamoDB's (``fencepost.core.storage.items``); a
delete or an update, whose item the front does not see, counts one write unit; a read is charged what it returned.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from capacity.modes import Mode
from capacity.placement import Position, position, read_units, write_units
from capacity.table import IndexWrite, Second, TableModel
from fencepost.core.storage.items import item_bytes

Item = dict[str, Any]


@dataclass(slots=True)
class Schema:
    hash_key: str
    range_key: str | None = None
    indexes: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # name: (hash key, range key)

    @classmethod
    def of(cls, description: dict[str, Any]) -> Schema:
        def keys(schema: list[dict[str, str]]) -> tuple[str, str | None]:
            kinds = {entry["KeyType"]: entry["AttributeName"] for entry in schema}
            return kinds["HASH"], kinds.get("RANGE")

        hash_key, range_key = keys(description["KeySchema"])
        indexes = {
            index["IndexName"]: keys(index["KeySchema"]) for index in description.get("GlobalSecondaryIndexes", [])
        }
        return cls(hash_key, range_key, indexes)

    def where(self, item: Item) -> Position:
        return position(item[self.hash_key], item.get(self.range_key) if self.range_key else None)

    def index_writes(self, item: Item, units: float) -> list[IndexWrite]:
        writes = []
        for name, (hash_key, range_key) in self.indexes.items():
            if hash_key in item:  # sparse: an item without the index's key is not in it
                writes.append((name, position(item[hash_key], item.get(range_key) if range_key else None), units))
        return writes


@dataclass(slots=True)
class Emulated:
    model: TableModel
    schema: Schema


class Tables:
    """The emulated tables, behind one lock (the model is not thread-safe; the front is)."""

    def __init__(
        self,
        mode: Mode,
        scale: float,
        on_second: Callable[[str, Second], None],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.mode, self.scale, self.on_second, self.clock = mode, scale, on_second, clock
        self.lock = threading.Lock()
        self.tables: dict[str, Emulated] = {}

    def create(self, name: str, description: dict[str, Any]) -> None:
        with self.lock:
            self.tables[name] = self._emulated(name, Schema.of(description))

    def known(self, name: str, describe: Callable[[], dict[str, Any]]) -> Emulated:
        """The table's model; a table not created through the front is emulated from its description."""
        with self.lock:
            found = self.tables.get(name)
        if found is None:
            emulated = self._emulated(name, Schema.of(describe()))
            with self.lock:
                found = self.tables.setdefault(name, emulated)
        return found

    def drop(self, name: str) -> None:
        with self.lock:
            self.tables.pop(name, None)

    def to_on_demand(self, name: str) -> None:
        with self.lock:
            if name in self.tables:
                self.tables[name].model.switch_to_on_demand(self.clock())

    def close_seconds(self) -> None:
        """Report the second each table is in now (``on_second``), as a later request would, when no more requests
        come (a run's end): its counts are final."""
        with self.lock:
            for table in self.tables.values():
                table.model.advance(self.clock() + 1)

    def _emulated(self, name: str, schema: Schema) -> Emulated:
        model = TableModel(self.mode, scale=self.scale, start=self.clock())
        model.on_second = lambda second: self.on_second(name, second)
        for index in schema.indexes:
            model.add_index(index)
        return Emulated(model, schema)

    # -- writes and reads ------------------------------------------------------------------------------------------

    def write(self, table: Emulated, item: Item, *, whole: bool) -> tuple[float, str | None]:
        """One item written (``whole``: a put, whose item is the whole of it): its units, and the refusal."""
        units = write_units(item_bytes(item)) if whole else 1.0
        indexes = table.schema.index_writes(item, units) if whole else []
        with self.lock:
            return units, table.model.write(
                self.clock(), table.schema.where(item), units, size=item_bytes(item), indexes=indexes
            )

    def may_read(self, table: Emulated, where: Position, *, eventual: bool, index: str | None = None) -> str | None:
        """Before a read: the least it costs, charged now (a refusal throttles it)."""
        with self.lock:
            return table.model.read(
                self.clock(), where, read_units(0, eventual=eventual), eventual=eventual, index=index
            )

    def charge_read(
        self, table: Emulated, where: Position, returned: int, *, eventual: bool, index: str | None = None
    ) -> float:
        """After a read: the rest of what it cost, beyond what ``may_read`` charged; the read's total units."""
        total, least = read_units(returned, eventual=eventual), read_units(0, eventual=eventual)
        if total > least:
            with self.lock:
                table.model.read(self.clock(), where, total - least, eventual=eventual, index=index)
        return total


def query_position(schema: Schema, request: dict[str, Any], index: str | None) -> Position:
    """Where a Query reads: its partition key value and, when its key condition bounds the sort key, that bound."""
    hash_key, range_key = (schema.hash_key, schema.range_key) if index is None else schema.indexes[index]
    names: dict[str, str] = dict(request.get("ExpressionAttributeNames", {}))
    values = request.get("ExpressionAttributeValues", {})
    condition = request.get("KeyConditionExpression", "")
    hash_value = sort_value = None
    for left, value in re.findall(r"([#\w.]+)\s*(?:=|<=|<|>=|>|BETWEEN)\s*(:\w+)", condition):
        attribute = names.get(left, left)
        if attribute == hash_key:
            hash_value = values.get(value)
        elif attribute == range_key:
            sort_value = values.get(value)
    legacy = request.get("KeyConditions", {})
    if hash_value is None and hash_key in legacy:
        hash_value = legacy[hash_key]["AttributeValueList"][0]
    return position(hash_value or {"S": ""}, sort_value)


def returned_bytes(items: Sequence[Item]) -> int:
    return sum(item_bytes(item) for item in items)
