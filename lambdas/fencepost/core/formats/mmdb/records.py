"""The records of a MaxMind DB file as rows: each distinct record decoded once, within bounds.

A record's leaves become dotted columns (``core.formats.mmdb``). Decoding keeps each record as the few (column, text)
pairs it has; rows of every column are made only at the end, once their size is known to fit. Every bound is applied
while records are decoded, so a crafted file fails within seconds, saying which bound it crossed:

- the number of columns (``max_columns``) and the bytes of their names (``COLUMN_NAMES_BYTES``, what a version's
  header can hold), as each new column is seen;
- the rows' size: every distinct record becomes a row of every column, 8 bytes a cell plus its text, charged to
  what is left of ``max_build_bytes`` before any row is made, so memory grows with the rows a version stores
  (each item holds every column), never with the square of the file;
- the data section: a value that starts or ends outside it (a pointer into the metadata or past the end, a
  string longer than what is left of the file) is corruption, not a shorter value;
- time: decoded values and cells count as work (``tree.Work``), so the deadline is checked inside decoding too.
"""

from __future__ import annotations

import json
from typing import Any

from maxminddb.decoder import Decoder
from maxminddb.errors import InvalidDatabaseError

from fencepost.core.folders.limits import Limits
from fencepost.core.formats.base import FileError, ProblemSink
from fencepost.core.formats.mmdb.tree import Work
from fencepost.core.formats.problems import Problem
from fencepost.core.storage.items import COLUMN_NAMES_BYTES, column_names_bytes, oversized_metadata

CELL_BYTES = 8  # a row's reference to its cell's text


class BoundedDecoder(Decoder):
    """``maxminddb``'s decoder, held to the data section ``[start, end)``: every value, a pointer's target
    included, must lie inside it (the reader itself would return a string cut short at the end of the file)."""

    def __init__(self, data: bytes, start: int, end: int) -> None:
        super().__init__(data, start)
        self._start, self._end = start, end

    def _decode(self, offset: int, budget: Any, pointer_target: bool) -> tuple[Any, int]:
        if not self._start <= offset < self._end:
            raise InvalidDatabaseError(f"a value at byte {offset:,} lies outside the data section")
        try:
            value, after = super()._decode(offset, budget, pointer_target)
        except UnicodeDecodeError:
            raise InvalidDatabaseError(
                f"a string at byte {offset:,} is not UTF-8, or runs past the end of the data section"
            ) from None
        if after > self._end:
            raise InvalidDatabaseError(f"a value at byte {offset:,} runs past the end of the data section")
        return value, after


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.hex()
    return json.dumps(value)  # true, 42, 1.5


def _leaves(value: Any, path: str, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _leaves(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _leaves(item, f"{path}.{index}" if path else str(index), out)
    else:
        out.append((path or "value", _text(value)))


def default_column(path: str) -> bool:
    """Kept without a ``columns`` setting: every leaf but translated names, whose English one is kept."""
    parts = path.split(".")
    return len(parts) < 2 or parts[-2] != "names" or parts[-1] == "en"


class Records:
    """Each distinct record decoded once, as (column index, text) pairs; the columns in first-seen order."""

    def __init__(
        self,
        decoder: BoundedDecoder,
        chosen: tuple[str, ...] | None,
        *,
        limits: Limits,
        room: int,
        work: Work,
    ) -> None:
        self.decoder, self.limits, self.room, self.work = decoder, limits, room, work
        self.fixed = chosen is not None
        self.columns: dict[str, int] = {name: index for index, name in enumerate(chosen or ())}
        self.names_bytes = column_names_bytes(self.columns)
        self.text_bytes = 0  # of every record's kept texts
        self.pairs: dict[int, tuple[tuple[int, str], ...]] = {}

    def learn(self, pointer: int, resolved: int) -> None:
        """Decode the record at ``resolved`` (the data section's ``pointer``), unless it already was."""
        if pointer in self.pairs:
            return
        leaves: list[tuple[str, str]] = []
        _leaves(self.decoder.decode(resolved)[0], "", leaves)
        self.work.add(len(leaves))
        columns, pairs = self.columns, []
        for path, text in leaves:
            if not self.fixed and path not in columns and default_column(path):
                self._add_column(path)
            if (index := columns.get(path)) is not None:
                pairs.append((index, text))
                self.text_bytes += len(text)
        self.pairs[pointer] = tuple(pairs)
        self._check_rows()

    def _add_column(self, path: str) -> None:
        if len(self.columns) >= self.limits.max_columns:
            raise FileError(None, self.limits.too_many_columns())
        self.names_bytes += column_names_bytes([path]) - column_names_bytes([])
        if self.names_bytes > COLUMN_NAMES_BYTES:
            raise FileError(
                None,
                f"the records' column names take more than {COLUMN_NAMES_BYTES:,} bytes, what a version can store "
                'in one DynamoDB item: choose the columns to keep with "columns" in _settings.json',
            )
        self.columns[path] = len(self.columns)

    def _check_rows(self) -> None:
        records, width = len(self.pairs), len(self.columns)
        if records * width * CELL_BYTES + self.text_bytes > self.room:
            raise FileError(None, self.limits.records_too_large(records, width, self.room))

    def values(self, name: str, problems: ProblemSink) -> dict[int, tuple[str, ...] | None]:
        """Every record's values in column order; None for a record too large for an item (a problem)."""
        width, found = len(self.columns), {}
        for pointer, pairs in self.pairs.items():
            self.work.add(width)
            cells = [""] * width
            for index, text in pairs:
                cells[index] = text
            values: tuple[str, ...] | None = tuple(cells)
            if (size := oversized_metadata(cells)) is not None:
                problems.add(Problem(name, None, f"a record of {size} bytes does not fit a 400 KB DynamoDB item"))
                values = None
            found[pointer] = values
        self.pairs.clear()
        return found
