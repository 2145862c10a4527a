"""Folder rules applied to every row once it is read, whatever its format: fixed columns (``constants``) and rows
that mean "no data" (``gap_when``), and the check that the columns other settings name (``index``, ``numeric``)
are there.

``"constants": {"list": "drop"}`` appends the column ``list``, valued ``drop``, to every row. ``"gap_when": {"asn":
"0"}`` makes every row whose ``asn`` is ``0`` a hole: it takes part in the overlap rule like any range (so it wins
inside a broader range, and the ranges nested inside it win there), but what it answers is not stored, so its
addresses answer NOT_FOUND (iptoasn marks unrouted space with AS 0). Several entries in ``gap_when`` must all match.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fencepost.core.versions.build import HOLE, Collector

Pairs = tuple[tuple[str, str], ...]  # column and value, in the settings' order

MAX_RULE_ENTRIES = 100


class RuleError(ValueError):
    """A rule that cannot apply to the dataset's columns; the message says why."""


def parse_pairs(value: Any, name: str) -> Pairs:
    """``{"column": value, ...}`` as pairs; a number or boolean value as its JSON text. Raises ``ValueError``."""
    if value is None:
        return ()
    if not isinstance(value, Mapping) or not value:
        raise ValueError(f'{name} must be an object of column names and values, e.g. {{"list": "drop"}}')
    if len(value) > MAX_RULE_ENTRIES:
        raise ValueError(f"{name} names {len(value)} columns; at most {MAX_RULE_ENTRIES}")
    pairs = []
    for column, given in value.items():
        if not column.strip():
            raise ValueError(f"{name} holds an empty column name")
        text = json.dumps(given) if isinstance(given, bool | int | float) else given
        if not isinstance(text, str):
            raise ValueError(f"{name}.{column} must be a string, a number or a boolean")
        pairs.append((column.strip(), text))
    return tuple(pairs)


def check_named(columns: Sequence[str], named: Sequence[str], setting: str) -> None:
    """The columns a setting names (``"index"``, ``"numeric"``) must be columns of the data, after the other rules."""
    missing = [column for column in named if column not in columns]
    if missing:
        raise RuleError(f"{setting} names columns the data does not have: {missing}; its columns are {list(columns)}")


def apply_rules(collector: Collector, columns: Sequence[str], constants: Pairs, gap_when: Pairs) -> tuple[str, ...]:
    """Apply the rules to every collected row; the columns of the result (``constants`` appended)."""
    names = tuple(columns)
    clashes = [column for column, _ in constants if column in names]
    if clashes:
        raise RuleError(f"constants name columns the data already has: {clashes}; rename them")
    missing = [column for column, _ in gap_when if column not in names]
    if missing:
        raise RuleError(f"gap_when names columns the data does not have: {missing}; its columns are {list(names)}")
    if not constants and not gap_when:
        return names
    where = [(names.index(column), text) for column, text in gap_when]
    fixed = tuple(text for _, text in constants)

    def change(values: tuple[str, ...]) -> tuple[str, ...]:
        if where and all(values[index] == text for index, text in where):
            return HOLE
        return values + fixed if fixed else values

    collector.remap(change)
    return names + tuple(column for column, _ in constants)
