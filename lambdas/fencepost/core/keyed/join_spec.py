"""The ``keyed_joins`` setting of a range dataset's folder: which keyed datasets complete its answers, live.

``"keyed_joins": [{"dataset": "as-names", "on": "asn", "columns": ["name", "country"], "prefix": "as_"}]`` adds
``as_name`` and ``as_country`` to the ``data`` of every answer of the folder's dataset, read from the row of the
``as-names`` dataset whose key is the answer's ``asn``: from the keyed version live when the lookup is made (or live
at ``as_of``), so a new version of ``as-names`` changes the answers without a build of this dataset. The join is part
of the range version (recorded at build, where the added names are checked against the version's columns).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from fencepost.core.keyed.keyed_table import KeyedError
from fencepost.core.storage.keys import DATASET_NAME_RULE, is_dataset_name

MAX_KEYED_JOINS: Final = 4  # each join is a table a lookup container holds in memory
MAX_JOINED_COLUMNS: Final = 16  # columns one join may add
# A column a join names (its ``on``, each of its ``columns``): the joins are recorded in the version's header item,
# which DynamoDB holds to 400 KB with the version's objects and columns (core.storage.items)
MAX_NAME_CHARS: Final = 128
_FIELDS: Final = {"dataset", "on", "columns", "prefix"}
_SHAPE: Final = '{"dataset": "<keyed dataset>", "on": "<column>", "columns": ["<column>", ...], "prefix": "<text>"}'


@dataclass(frozen=True, slots=True)
class KeyedJoin:
    """One join: the keyed ``dataset``, the range column whose value is the key (``on``), the keyed columns added,
    and the ``prefix`` their names take in the answer."""

    dataset: str
    on: str
    columns: tuple[str, ...]
    prefix: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        """The names the added columns take in the answer's ``data``."""
        return tuple(self.prefix + column for column in self.columns)

    def document(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "on": self.on, "columns": list(self.columns), "prefix": self.prefix}

    @classmethod
    def parse(cls, value: Any) -> KeyedJoin:
        """One element of the setting; ``KeyedError`` naming what is wrong."""
        if not isinstance(value, Mapping) or set(value) - _FIELDS or not {"dataset", "on", "columns"} <= set(value):
            raise KeyedError(f"each keyed_joins element is {_SHAPE} (prefix optional)")
        dataset, on, columns, prefix = value["dataset"], value["on"], value["columns"], value.get("prefix", "")
        if not isinstance(dataset, str) or not is_dataset_name(dataset):
            raise KeyedError(f"keyed_joins.dataset {str(dataset)[:80]!r} is no dataset name: {DATASET_NAME_RULE}")
        if not _is_name(on):
            raise KeyedError(f"keyed_joins.on must name a column of this dataset (at most {MAX_NAME_CHARS} characters)")
        if (
            not isinstance(columns, list)
            or not 0 < len(columns) <= MAX_JOINED_COLUMNS
            or not all(map(_is_name, columns))
            or len(set(columns)) != len(columns)
        ):
            raise KeyedError(
                f"keyed_joins.columns must be 1 to {MAX_JOINED_COLUMNS} distinct column names of at most "
                f"{MAX_NAME_CHARS} characters"
            )
        if not isinstance(prefix, str) or len(prefix) > 64:
            raise KeyedError("keyed_joins.prefix must be text of at most 64 characters")
        return cls(dataset, on.strip(), tuple(c.strip() for c in columns), prefix)


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip()) and len(value.strip()) <= MAX_NAME_CHARS


def parse_keyed_joins(value: Any) -> tuple[KeyedJoin, ...]:
    """The whole setting: a list of at most ``MAX_KEYED_JOINS`` joins whose added names are distinct."""
    if not isinstance(value, list) or len(value) > MAX_KEYED_JOINS:
        raise KeyedError(f"keyed_joins must be a list of at most {MAX_KEYED_JOINS} joins, each {_SHAPE}")
    joins = tuple(KeyedJoin.parse(element) for element in value)
    names = [name for join in joins for name in join.names]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise KeyedError(f"keyed_joins add {twice} more than once: give each join its own prefix")
    return joins


def check_joins(joins: Sequence[KeyedJoin], columns: Sequence[str], dataset: str) -> None:
    """At build: every ``on`` is a column of the version, no added name is one already, and no join reads the
    dataset itself."""
    for join in joins:
        if join.dataset == dataset:
            raise KeyedError(f"keyed_joins cannot join dataset {dataset!r} to itself")
        if join.on not in columns:
            raise KeyedError(f"keyed_joins.on {join.on!r} is no column of the data; its columns are {list(columns)}")
        clashes = [name for name in join.names if name in columns]
        if clashes:
            raise KeyedError(f"keyed_joins would add {clashes}, already columns of the data: give a prefix")


def stored_joins(joins: Sequence[KeyedJoin]) -> str | None:
    """The joins as a version header stores them (JSON text); None for none."""
    return json.dumps([join.document() for join in joins], separators=(",", ":")) if joins else None


def keyed_joins(stored: str | None) -> tuple[KeyedJoin, ...]:
    """The joins a version header stored (``stored_joins``); () for none or an unreadable value."""
    if not stored:
        return ()
    try:
        return parse_keyed_joins(json.loads(stored))
    except (KeyedError, ValueError):
        return ()
