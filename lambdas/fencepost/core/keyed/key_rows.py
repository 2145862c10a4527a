"""The rows of a keyed dataset gathered from its objects, whatever their format (``core.keyed.key_files``): one row a
key, the keys normalized in the table's form (``core.keyed.keyed_table.normalize``).

What cannot make one table is refused, naming where: objects whose columns differ, a key held twice with different
values (both places named: which would win is nobody's choice), more keys than the loader's ``MAX_KEYED_ROWS``, rows
that would take more memory than ``max_bytes`` (``KeyedTable.memory_bytes``: a wide table takes about 20 times its
text). A row with no valid key is an invalid row, counted as a range file's bad rows are (the folder's
``max_invalid_rows``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from fencepost.core.formats.base import ProblemSink
from fencepost.core.formats.problems import Problem
from fencepost.core.keyed.keyed_table import KeyedError, KeyedTable, normalize, row_bytes


class KeyFileError(KeyedError):
    """Objects that cannot make one keyed table: the reason, and the object and line where it was found."""

    def __init__(self, reason: str, object_key: str = "", line: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.object_key, self.line = reason, object_key, line


@dataclass(slots=True)
class KeyRows:
    """The table being gathered. ``key``: the key column; ``form``: the key form the settings chose (None: each
    layout's own, ``text`` for CSV, ``asn`` for AS-names lists); ``max_rows`` and ``too_many``: the limit on keys and
    what crossing it says; ``max_bytes`` and ``too_large``: the limit on the memory the rows take, and its message."""

    key: str
    form: str | None
    max_rows: int
    too_many: str
    max_bytes: int | None = None  # None: the rows are bounded by ``max_rows`` only
    too_large: str = ""
    columns: tuple[str, ...] | None = None  # the columns other than the key, once the first object gave them
    rows: dict[str, tuple[str, ...]] = field(default_factory=dict)
    where: dict[str, tuple[str, int]] = field(default_factory=dict)  # each key's object and line
    first: str = ""  # the object that gave the columns
    chosen: bool = False  # whether the settings chose the form (else the first object's layout did)
    held: int = 0  # the memory the rows take, estimated (``core.keyed.keyed_table.row_bytes``)

    def start(self, name: str, columns: Sequence[str], form: str) -> None:
        """An object's layout: its columns (other than the key) must be the first object's; ``form``: its layout's
        key form, used when the settings chose none (an AS-names list or a registry's statistics after a CSV read
        with text keys is refused: which is read first is only the order of their names)."""
        found = tuple(columns)
        if self.columns is None:
            self.columns, self.first = found, name
            self.chosen = self.form is not None
            self.form = self.form or form
        elif not self.chosen and form == "asn" and self.form != "asn":
            raise KeyFileError(
                f"{name} is keyed by AS numbers (an AS-names list or a registry's statistics), but {self.first} before "
                'it was read with text keys: set "key_form" ("asn" or "text") in _settings.json',
                name,
            )
        elif found != self.columns:
            raise KeyFileError(
                f"{name} has the columns {[self.key, *found]} but {self.first} has {[self.key, *self.columns]}: all "
                "objects of a keyed dataset must have the same columns",
                name,
            )

    def add(self, raw: str, values: tuple[str, ...], name: str, line: int, problems: ProblemSink) -> None:
        """One row: its key as read, its other values; a row with no valid key is an invalid row (``problems``)."""
        key = normalize(self.form or "text", raw)
        if key is None:
            problems.add(Problem(name, line, self._no_key(raw)))
            return
        held = self.rows.get(key)
        if held is None:
            if len(self.rows) >= self.max_rows:
                raise KeyFileError(self.too_many, name, line)
            self.held += row_bytes(key, values)
            if self.max_bytes is not None and self.held > self.max_bytes:
                raise KeyFileError(self.too_large, name, line)
            self.rows[key], self.where[key] = values, (name, line)
        elif held != values:
            at, first = self.where[key]
            raise KeyFileError(
                f"{self.key} {key[:80]!r} is held twice with different values, at {at} line {first} and {name} line "
                f"{line}: a lookup could join either; remove one",
                name,
                line,
            )

    def _no_key(self, raw: str) -> str:
        shown = raw.strip()[:80]
        if not shown:
            return f"the row has no {self.key}"
        if self.form == "asn":
            return f"{self.key} {shown!r} is no AS number (AS13335, 13335; at most {2**32 - 1:,})"
        return f"{self.key} {shown!r} is too long to be a key"

    def table(self) -> KeyedTable:
        return KeyedTable(self.key, self.form or "text", self.columns or (), dict(self.rows))
