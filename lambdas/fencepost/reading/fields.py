"""Field selection: ``fields=data.country,match.network,version`` keeps only those paths of an answer.

A path is a known top-level field of an answer (``TOP_LEVEL``), or one of them, a dot and a key below it
(``range.cidrs``, ``match.network``, ``data.<column>``). Only the first dot splits: a column named ``a.b`` is
``data.a.b``. An unknown top-level field is refused (``InvalidFields``); an unknown key below a known field, or a
key below a field that is not an object (``version.x``), selects nothing and is simply absent. ``ip`` is always kept,
and so is ``error`` where an answer has one; everything beside them (``reserved`` beside a NOT_FOUND error, say) only
when selected. A field selected whole and by a key (``data`` and ``data.country``) is kept whole.

Parsing and selection are pure, over one answer as a dict, so any answer of any route can be selected the same way.
A several-dataset answer (``fencepost.reading.answers.combined``) keeps its ``answers``, each selected, and its own
``match`` and ``reserved`` when selected (``select_combined``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fencepost.errors import InvalidFields
from fencepost.reading.answers import SELECTABLE

TOP_LEVEL = SELECTABLE  # every top-level field of an answer (fencepost.reading.answers)
ALWAYS = ("ip", "error")  # kept in every selected answer that has them

MAX_FIELDS_CHARS = 1000  # the whole parameter (GET), or all the paths together (POST)
MAX_PATHS = 50

# What the parsers accept (besides the bound on length), as regular expressions: one path, and a parameter.
PATH_PATTERN = "(?:" + "|".join(TOP_LEVEL) + r")(?:\.[\s\S]+)?"
_PATH = "(?:" + "|".join(TOP_LEVEL) + r")(?:\.[^,]+)?"
FIELDS_PATTERN = f"{_PATH}(?:,{_PATH}){{0,{MAX_PATHS - 1}}}"


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


@dataclass(frozen=True, slots=True)
class Selection:
    """The paths to keep: for each selected top-level field, None (all of it) or the keys kept below it."""

    paths: Mapping[str, frozenset[str] | None]

    def keeps(self, field: str) -> bool:
        return field in ALWAYS or field in self.paths


def parse_paths(paths: Sequence[str]) -> Selection:
    """The selection of ``paths`` (each ``field`` or ``field.key``), checked and bounded, or ``InvalidFields``."""
    if not paths:
        raise InvalidFields("fields names no path: give at least one, such as fields=data.country,version")
    if len(paths) > MAX_PATHS:
        raise InvalidFields(f"fields names {len(paths)} paths; at most {MAX_PATHS} are allowed")
    if sum(len(path) for path in paths) + len(paths) - 1 > MAX_FIELDS_CHARS:
        raise InvalidFields(f"fields is longer than {MAX_FIELDS_CHARS} characters")
    whole: set[str] = set()
    keys: dict[str, set[str]] = {}
    for path in paths:
        top, dot, key = path.partition(".")
        if not top or (dot and not key):
            raise InvalidFields(f"fields holds an empty path or key ({_shown(path)}): name each, as in data.country")
        if top not in TOP_LEVEL:
            raise InvalidFields(f"unknown field {_shown(top)} in fields: an answer's fields are {', '.join(TOP_LEVEL)}")
        if dot:
            keys.setdefault(top, set()).add(key)
        else:
            whole.add(top)
    selected: dict[str, frozenset[str] | None] = {top: frozenset(below) for top, below in keys.items()}
    selected.update(dict.fromkeys(whole))
    return Selection(selected)


def parse_text(text: str) -> Selection:
    """The selection of a comma-separated list of paths, as ``GET /lookup?fields=`` takes it."""
    if len(text) > MAX_FIELDS_CHARS:
        raise InvalidFields(f"fields is longer than {MAX_FIELDS_CHARS} characters")
    return parse_paths(text.split(","))


def parse_list(value: object) -> Selection:
    """The selection of a JSON list of paths, as the body of ``POST /lookup`` takes it under ``"fields"``."""
    if not isinstance(value, list) or not all(isinstance(path, str) for path in value):
        raise InvalidFields('fields must be a list of strings, such as ["data.country", "version"]')
    return parse_paths(value)


def select(answer: Mapping[str, Any], selection: Selection) -> dict[str, Any]:
    """``answer`` with only the selected paths (and ``ip`` and ``error``), in the answer's own order."""
    kept: dict[str, Any] = {}
    for field, value in answer.items():
        if field in ALWAYS:
            kept[field] = value
        elif field in selection.paths:
            below = selection.paths[field]
            if below is None:
                kept[field] = value
            elif isinstance(value, Mapping):
                kept[field] = {key: item for key, item in value.items() if key in below}
    return kept


def select_combined(answer: Mapping[str, Any], selection: Selection) -> dict[str, Any]:
    """A several-dataset answer with the selection applied to each of its ``answers`` and to its own fields."""
    kept = select({field: value for field, value in answer.items() if field != "answers"}, selection)
    if "answers" in answer:
        kept["answers"] = [select(element, selection) for element in answer["answers"]]
    return kept
