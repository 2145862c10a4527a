"""Joins: range rows that carry a key, completed with the columns of a lookup table in the same folder.

``"join": {"object": "locations.csv", "on": "geoname_id", "columns": ["country_name", "city_name"]}`` reads the
folder's ``locations.csv`` (a CSV table with a header holding a ``geoname_id`` column, not a range file) and adds
its ``country_name`` and ``city_name`` to each range row, looked up by the row's ``geoname_id`` (without
``columns``: every table column but the key).

What a join cannot match is reported, never silent: rows whose key the table lacks get empty values and are counted,
with examples (a warning, or a failure beyond the folder's ``max_unjoined_rows``); a key the table holds twice with
different values fails the load naming both lines (which would win is nobody's choice); a table row with the wrong
number of cells fails it too. A row with no key at all (empty) joins nothing and is no miss.

MaxMind's GeoLite2 / GeoIP2 CSV folders need no setting: ``*-Blocks-IPv4.csv`` and ``*-Blocks-IPv6.csv`` are
joined with ``*-Locations-<locale>.csv`` (``"locale"``, default ``en``) on ``geoname_id``, falling back to
``registered_country_geoname_id`` when a block has no ``geoname_id``, as MaxMind documents.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fencepost.core.space.addresses import format_address
from fencepost.core.versions.build import HOLE, Collector

_BLOCKS = re.compile(r"(?:^|/)[^/]*-Blocks-IPv[46]\.csv(?:\.gz)?$")
_LOCATIONS = re.compile(r"(?:^|/)[^/]*-Locations-([A-Za-z-]+)\.csv(?:\.gz)?$")
GEONAME = "geoname_id"
REGISTERED = "registered_country_geoname_id"
EXAMPLES = 5  # keys a missed join names


class JoinError(ValueError):
    """A join that cannot be made; the message says why."""


@dataclass(frozen=True, slots=True)
class JoinSpec:
    """What to join: the table's key (relative to the folder), the range column to look up (and a fallback
    column for rows where it is empty), and the table columns to add (None: all but the key)."""

    object: str
    on: str
    columns: tuple[str, ...] | None = None
    fallback: str | None = None

    @classmethod
    def parse(cls, value: Any) -> JoinSpec:
        """The ``join`` setting; raises ``ValueError`` with a message."""
        if (
            not isinstance(value, Mapping)
            or set(value) - {"object", "on", "columns"}
            or not {"object", "on"} <= set(value)
        ):
            raise ValueError('join must be {"object": "<key in the folder>", "on": "<column>", "columns": [...]}')
        obj, on, columns = value["object"], value["on"], value.get("columns")
        if not isinstance(obj, str) or not obj.strip() or obj.startswith(("_", ".", "/")):
            raise ValueError("join.object must be the key of a table in the folder (not starting with _ . or /)")
        if not isinstance(on, str) or not on.strip():
            raise ValueError("join.on must name a column of the range files")
        if columns is not None and (
            not isinstance(columns, list) or not columns or not all(isinstance(c, str) and c for c in columns)
        ):
            raise ValueError("join.columns must be a non-empty list of column names")
        return cls(obj.strip(), on.strip(), None if columns is None else tuple(columns))


def is_geolite_folder(keys: Iterable[str]) -> bool:
    names = list(keys)
    return any(_BLOCKS.search(key) for key in names) and any(_LOCATIONS.search(key) for key in names)


def tables_of(keys: Sequence[str], join: JoinSpec | None) -> set[str]:
    """The objects of a folder that are lookup tables, not range files: every GeoLite2 locations file, and the
    table a ``join`` names (matched by its key's end, the key relative to the folder)."""
    tables = {key for key in keys if _LOCATIONS.search(key)} if is_geolite_folder(keys) else set()
    if join is not None:
        tables |= set(_named(keys, join.object))
    return tables


def _named(keys: Sequence[str], name: str) -> list[str]:
    """The keys that are ``name`` in the folder (``name`` relative to it, or the whole key)."""
    return sorted(key for key in keys if key == name or key.endswith("/" + name))


def folder_join(keys: Sequence[str], join: JoinSpec | None, locale: str) -> JoinSpec | None:
    """The join a folder needs, its ``object`` the table's whole key: its ``join`` setting, else the GeoLite2 join
    when the folder has that layout."""
    if join is not None:
        named = _named(keys, join.object)
        if not named:
            raise JoinError(f"join.object {join.object!r} is not an object of the folder")
        return dataclasses.replace(join, object=named[0])
    if not is_geolite_folder(keys):
        return None
    found = {match.group(1): key for key in keys if (match := _LOCATIONS.search(key))}
    if locale not in found:
        raise JoinError(f'no locations file for locale {locale!r}; the folder has {sorted(found)} (set "locale")')
    return JoinSpec(found[locale], GEONAME, None, REGISTERED)


@dataclass(frozen=True, slots=True)
class Table:
    """A lookup table read whole: the columns it adds, and their values by key."""

    columns: tuple[str, ...]
    rows: dict[str, tuple[str, ...]]


def read_table(lines: Iterable[str], spec: JoinSpec, name: str) -> Table:
    """The table of ``spec`` from its text lines (CSV with a header naming the key column ``spec.on``). Raises
    ``JoinError`` for a row with the wrong number of cells, or a key held twice with different values."""
    reader = csv.reader(lines)
    header = [cell.strip() for cell in next(reader, [])]
    if spec.on not in header:
        raise JoinError(f"{name} has no column {spec.on!r} to join on; its header is {header[:20]}")
    wanted = spec.columns or tuple(column for column in header if column != spec.on)
    missing = [column for column in wanted if column not in header]
    if missing:
        raise JoinError(f"{name} has no columns {missing}; its header is {header[:20]}")
    key_at, picks = header.index(spec.on), [header.index(column) for column in wanted]
    rows: dict[str, tuple[str, ...]] = {}
    first_line: dict[str, int] = {}
    for cells in reader:
        if not cells:
            continue  # a blank line
        if len(cells) != len(header):
            raise JoinError(f"{name} line {reader.line_num} has {len(cells)} cells; its header has {len(header)}")
        key, values = cells[key_at].strip(), tuple(cells[index].strip() for index in picks)
        held = rows.setdefault(key, values)
        if held != values:
            raise JoinError(
                f"{name} has {spec.on} {key[:80]!r} twice with different values, at lines {first_line[key]} and "
                f"{reader.line_num}: a row could join either; remove one"
            )
        first_line.setdefault(key, reader.line_num)
    return Table(tuple(wanted), rows)


@dataclass(frozen=True, slots=True)
class Joined:
    """The columns after a join, and the rows whose key the table lacked: how many, and a few of their keys
    (each with the first address of a row that has it)."""

    columns: tuple[str, ...]
    rows: int
    unjoined: int = 0
    examples: tuple[tuple[str, str], ...] = ()

    def miss(self, spec: JoinSpec, table: str) -> str | None:
        """What the missed rows are, for the build's problems; None when every row with a key joined."""
        if not self.unjoined:
            return None
        keys = ", ".join(f"{key[:80]!r} (at {address})" for key, address in self.examples)
        return (
            f"{self.unjoined:,} of {self.rows:,} rows have a {spec.on} that {table} lacks, e.g. {keys}: their "
            "joined columns are empty"
        )


def apply_join(collector: Collector, columns: Sequence[str], spec: JoinSpec, table: Table) -> Joined:
    """Add the table's columns to every collected row; the columns of the result, and the rows that missed."""
    names = tuple(columns)
    if spec.on not in names:
        raise JoinError(f"the range files have no column {spec.on!r} to join on; their columns are {list(names)}")
    clashes = [column for column in table.columns if column in names]
    if clashes:
        raise JoinError(f"the table's columns {clashes} are already columns of the range files: list others")
    on = names.index(spec.on)
    fallback = names.index(spec.fallback) if spec.fallback in names else None
    empty = ("",) * len(table.columns)

    def key_of(values: tuple[str, ...]) -> str:
        return values[on] or (values[fallback] if fallback is not None else "")

    rows = unjoined = 0
    examples: dict[str, str] = {}
    for family, ranges in collector.families.items():
        for start, values in zip(ranges.starts, ranges.values, strict=True):
            if values is HOLE:
                continue
            rows += 1
            key = key_of(values)
            if key and key not in table.rows:
                unjoined += 1
                if len(examples) < EXAMPLES and key not in examples:
                    examples[key] = format_address(family, start)

    def change(values: tuple[str, ...]) -> tuple[str, ...]:
        if values is HOLE:
            return values
        return values + table.rows.get(key_of(values), empty)

    collector.remap(change)
    return Joined(names + table.columns, rows, unjoined, tuple(examples.items()))
