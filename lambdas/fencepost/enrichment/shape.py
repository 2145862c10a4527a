"""What an enriched row carries: for each dataset (or, with ``mode=first``, for the one answer) the ``GET /lookup``
answer for its address, with the fields selected as ``fields=`` selects them, ``ip`` left out (the row has it).

``compose`` builds those objects with the lookup's own code (``reading.answers``, ``reading.fields``), so each value
is exactly what ``GET /lookup`` answers; ``columns`` names the flat columns a CSV or TSV output gets
(``<dataset>.<path>``, one per leaf: ``geo.data.country``, ``geo.range.cidrs``), the same for every row. A dataset's
``data`` columns are its versions' and then the names its keyed joins add (``answer_columns``); ``joined`` is one
column, its list as JSON.

Keys of the objects (the *prefixes*): each dataset's name; ``all`` for what a several-dataset answer holds beside
its ``answers`` (``match``, ``reserved``: when selected); ``first`` for the answer of ``mode=first``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from fencepost.errors import InvalidFields, InvalidRequest, NotFound
from fencepost.model import VersionInfo
from fencepost.reading.answers import Answer, Miss, Mode, Outcome, Unknown, combined, overlay
from fencepost.reading.fields import Selection, parse_text, select, select_combined
from fencepost.reading.joined import JoinedPart

Objects = dict[str, dict[str, Any]]  # each prefix's answer object
ALL: Final = "all"
FIRST: Final = "first"
DEFAULT_FIELDS: Final = "data"
# The leaves below each selectable field, as CSV columns show them (``data``'s are the dataset's columns).
LEAVES: Final[dict[str, tuple[str, ...]]] = {
    "ip": ("",),
    "dataset": ("",),
    "version": ("",),
    "range": ("start", "end", "cidrs"),
    "match": ("start", "end", "network"),
    "gap": ("start", "end", "network"),
    "reserved": ("name", "network", "rfc"),
    "versions": ("",),
    "error": ("code", "message"),
    "joined": ("",),  # the keyed joins' list, as JSON
}
# Fields whose value is the same for every address a piece answers: rows are then answered once per piece.
PIECE_FIELDS: Final = frozenset({"dataset", "version", "data", "range", "joined"})
NOT_HERE: Final = ("as_of",)  # a row's own instant: the row holds its time already


def answer_columns(info: VersionInfo) -> tuple[str, ...]:
    """The columns of ``data`` in a found answer of ``info``: its own, then those its keyed joins add."""
    return (*info.columns, *(name for join in info.keyed_joins for name in join.names))


def parse_fields(text: str | None) -> Selection:
    selection = parse_text(DEFAULT_FIELDS if text is None else text)
    refused = [field for field in NOT_HERE if field in selection.paths]
    if refused:
        raise InvalidFields(f"fields may not name {', '.join(refused)} here: each row holds its own time")
    return selection


@dataclass(frozen=True, slots=True)
class Shape:
    """The datasets of a job, how their answers combine, the fields kept, and the columns that makes."""

    datasets: tuple[str, ...]
    mode: Mode
    selection: Selection
    columns_of: Mapping[str, tuple[str, ...]]  # each dataset's data columns

    def __post_init__(self) -> None:
        """Each prefix names one object: a dataset named twice, or named as a prefix of the combined answer, is
        refused (its columns would fall on another's)."""
        if len(set(self.datasets)) != len(self.datasets):
            raise InvalidRequest("a dataset is named twice in the list: name each once")
        if len(self.datasets) > 1 and {ALL, FIRST} & set(self.datasets):
            raise InvalidRequest(f"with several datasets, none may be named {ALL!r} or {FIRST!r}: answers go there")

    @property
    def prefixes(self) -> tuple[str, ...]:
        if len(self.datasets) == 1:
            return self.datasets
        return (FIRST,) if self.mode is Mode.FIRST else (*self.datasets, ALL)

    def by_piece(self, *, errors_shown: bool) -> bool:
        """Whether every row a piece answers gets the same objects (so rows are answered once per piece)."""
        fields = set(self.selection.paths)
        return fields <= PIECE_FIELDS and not errors_shown

    @property
    def data_only(self) -> bool:
        """One dataset and only its ``data`` selected: a found answer is then its piece's values by column name."""
        return len(self.datasets) == 1 and set(self.selection.paths) == {"data"}

    def data_object(self, columns: Sequence[str], values: Sequence[str], joined: Sequence[JoinedPart] = ()) -> Objects:
        """What ``compose`` gives for a found answer when ``data_only``: ``Answer.body``'s ``data`` (the values by
        column, as ``zip`` pairs them, then the columns ``joined`` adds), selected; made without the answer around
        it, for speed."""
        data: dict[str, str | None] = dict(zip(columns, values, strict=False))
        for part in joined:
            data.update(part.data())
        below = self.selection.paths.get("data")
        return {self.datasets[0]: {"data": data if below is None else {k: v for k, v in data.items() if k in below}}}

    def shows_bounds(self) -> bool:
        """Whether an answer shows a piece's or its range's bounds (``range``, ``match``; and every field of a
        several-dataset answer, whose ``match`` is made from them)."""
        return len(self.datasets) > 1 or bool({"range", "match"} & set(self.selection.paths))

    def columns(self) -> list[Column]:
        """The flat columns, in order: per prefix, the selected fields in answer order, each leaf."""
        found: list[Column] = []
        for prefix in self.prefixes:
            for field in self._fields(prefix):
                below = self.selection.paths[field]
                leaves = [leaf for leaf in self._leaves(prefix, field) if below is None or leaf in below]
                found += [Column(prefix, field, leaf) for leaf in leaves]
        return found

    def _fields(self, prefix: str) -> list[str]:
        chosen = [field for field in _ORDER if field in self.selection.paths]
        return [field for field in chosen if field in ("match", "reserved")] if prefix == ALL else chosen

    def _leaves(self, prefix: str, field: str) -> tuple[str, ...]:
        if field != "data":
            return LEAVES[field]
        datasets = self.datasets if prefix in (FIRST, ALL) else (prefix,)
        return tuple(dict.fromkeys(column for name in datasets for column in self.columns_of[name]))

    def compose(self, family: int, address: int, outcomes: Sequence[Outcome]) -> dict[str, dict[str, Any]]:
        """Each prefix's object for an address, from its datasets' outcomes (in ``datasets`` order)."""
        if len(outcomes) == 1:
            body = _single(outcomes[0], self.selection.paths.keys())
            return {self.datasets[0]: _without_ip(select(body, self.selection), self.selection)}
        if self.mode is Mode.FIRST:
            unknown = next((outcome for outcome in outcomes if isinstance(outcome, Unknown)), None)
            if unknown is not None:  # mode=first needs every dataset of the list, as GET /lookup does
                return {FIRST: _without_ip(select(_single(unknown, ()), self.selection), self.selection)}
            first = overlay(family, address, [o for o in outcomes if not isinstance(o, Unknown)])
            shown = {**first.details, "error": first.body()} if isinstance(first, NotFound) else first
            return {FIRST: _without_ip(select(shown, self.selection), self.selection)}
        whole = select_combined(combined(family, address, outcomes), self.selection)
        objects = {
            name: _without_ip(element, self.selection)
            for name, element in zip(self.datasets, whole.pop("answers"), strict=True)
        }
        objects[ALL] = _without_ip(whole, self.selection)
        return objects

    @staticmethod
    def cells(objects: Mapping[str, Mapping[str, Any]], columns: Sequence[Column]) -> list[str]:
        """The flat cells of ``objects`` for ``columns`` (``columns()``): "" where an answer has no such leaf."""
        return [column.cell(objects) for column in columns]


@dataclass(frozen=True, slots=True)
class Column:
    """One flat column: a prefix's field, and the leaf below it ("" for a field that is a value)."""

    prefix: str
    field: str
    leaf: str

    @property
    def name(self) -> str:
        return f"{self.prefix}.{self.field}" + (f".{self.leaf}" if self.leaf else "")

    def cell(self, objects: Mapping[str, Mapping[str, Any]]) -> str:
        value: Any = objects.get(self.prefix, {}).get(self.field)
        if self.leaf:
            value = value.get(self.leaf) if isinstance(value, Mapping) else None
        if value is None:
            return ""
        if isinstance(value, list):
            return " ".join(value) if all(isinstance(item, str) for item in value) else json.dumps(value)
        return str(value)


_ORDER: Final = ("ip", "dataset", "version", "range", "match", "data", "joined", "gap", "versions", "reserved", "error")


def _single(outcome: Outcome, fields: Collection[str]) -> dict[str, Any]:
    if isinstance(outcome, Answer):
        return outcome.body(fields)
    if isinstance(outcome, Miss):
        return {**outcome.details(), "error": NotFound(outcome.message()).body()}
    return {"dataset": outcome.name, "error": outcome.error.body()}


def _without_ip(body: Mapping[str, Any], selection: Selection) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "ip" or "ip" in selection.paths}
