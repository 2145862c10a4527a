"""The files a job reads, a batch of lines at a time: each data line kept as it is, with its address text and (when
rows are answered as of their own time) its time text.

- ``lines``: one address a line (spaces around it ignored);
- ``csv`` / ``tsv``: a header line (unless ``header=False``), the address in a named column or a 1-based number;
- ``jsonl``: one JSON object a line, the address at a dotted field path (``client.ip``);
- the AWS logs of ``core.logs.aws_layouts`` (``alb``, ``cloudfront``, ``vpc-flow``, ``s3-access``), each by its
  documented layout, the address in its default field or a named one, the time from the layout's own fields.

A line that cannot be read (too few fields, not JSON, no such field) is still a row: kept, with no address, and the
reason counted (``Rows.bad``). Header and comment lines are no rows.

A CSV or TSV row is a record, which a quoted field's line breaks make span lines (``enrichment.csv_records``); the other
formats have one row a line (a JSON line holds a line break only as the escape ``\\n``, a log line none).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from fencepost.core.logs.aws_layouts import LAYOUTS
from fencepost.core.logs.layout import LayoutError, LogLayout
from fencepost.enrichment import log_heads
from fencepost.enrichment.csv_records import RECORD_LINES, Records

_SPACES: Final = " \t\r\x0b\x0c\x1c\x1d\x1e\x1f"  # what ``str.strip`` takes off ASCII text (but line breaks)
PLAIN: Final = ("lines", "csv", "tsv", "jsonl")
FORMATS: Final = (*PLAIN, *LAYOUTS)


class InputError(ValueError):
    """An input that cannot be read as asked; the message names the line."""


@dataclass(slots=True)
class Rows:
    """One batch of data lines: ``lines[i]`` (as read, no line ending) is the file's line ``numbers[i]`` (a CSV or TSV
    record: its lines from that one, joined by their line breaks)."""

    lines: list[str] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)
    times: list[Sequence[str]] | None = None  # each row's time fields (``[]``: none), when asked for
    fields: list[list[str]] | None = None  # each row's fields (logs: what a CSV or JSON output writes)
    bad: dict[int, str] = field(default_factory=dict)  # row index: why its address could not be read


class Reader:
    """Reads one file's lines in its format; ``column`` names the address (a column, a field path, a log field),
    ``time``: the column or field path of each row's time, or ``"log"`` for a log layout's own; ``record_lines``: the
    lines a CSV or TSV record may span."""

    def __init__(
        self,
        form: str,
        *,
        column: str | None = None,
        time: str | None = None,
        header: bool = True,
        record_lines: int = RECORD_LINES,
    ) -> None:
        if form not in FORMATS:
            raise InputError(f"unknown input format {form!r}: the formats are {', '.join(FORMATS)}")
        self.form, self.column, self.time, self.header = form, column, time, header
        self.layout: LogLayout | None = LAYOUTS.get(form)
        if self.time == "log" and self.layout is None:
            raise InputError(f"--time log takes a log's own time: {form} is no log layout")
        if self.time and form == "lines":
            raise InputError("a file of one address a line holds no time: --time needs a column, a field or a log")
        if self.layout is not None and column is not None and column not in self.layout.addresses:
            raise InputError(f"{form} logs hold addresses in {', '.join(self.layout.addresses)}, not {column!r}")
        self.names: list[str] | None = list(self.layout.names) if self.layout else None
        self.header_line: str | None = None  # a CSV or TSV file's header, as read
        self._index: int | None = None
        self._time_index: int | None = None
        self._positions: tuple[list[str], tuple[str, int | None, tuple[int | None, ...], int]] | None = None
        self.whole_fields = True  # a log's rows carry all their fields (``Rows.fields``): what a CSV output writes
        self.records = Records(record_lines) if form in ("csv", "tsv") else None
        self.spans_lines = self.records is not None  # rows are records (read with each line's "\r", if any, kept)

    @property
    def held(self) -> list[str]:
        """The lines of a CSV or TSV record the next batch may close."""
        return self.records.held if self.records is not None else []

    @property
    def separator(self) -> str:
        return "\t" if self.form == "tsv" else ","

    def read(self, lines: Sequence[str], first: int, *, more: bool = False) -> Rows:
        """The rows of ``lines``, the first of which is the file's line ``first`` (1-based); ``more``: lines follow, so
        a CSV or TSV record still open at the end waits for them (``held``)."""
        if self.form == "lines":  # every line a row: no step per line but the strip, where any line needs it
            kept = list(lines)
            addresses = [line.strip() for line in kept] if _spaced("\n".join(kept)) else kept
            return Rows(kept, list(range(first, first + len(kept))), addresses)
        if self.layout is not None and not self.whole_fields:
            lean = self._lean_log(lines, first)
            if lean is not None:
                return lean
        numbers: Sequence[int] = range(first, first + len(lines))
        unclosed: dict[int, str] = {}
        if self.records is not None:
            lines, numbers, unclosed = self.records.read(lines, first, more=more)
        rows = Rows(times=[] if self.time else None, fields=[] if self.layout and self.whole_fields else None)
        for line, number in zip(lines, numbers, strict=True):
            if self.spans_lines and self.header and self.header_line is None:
                self._read_header(line, number)
                continue
            if self.layout is not None and self._log_header(line):
                continue
            rows.lines.append(line)
            rows.numbers.append(number)
            try:
                if unclosed and number in unclosed:
                    raise InputError(unclosed[number])
                address, time = self._row(line, rows)
            except (LayoutError, InputError) as error:
                rows.bad[len(rows.lines) - 1] = str(error)
                address, time = "", ()
                if rows.fields is not None and len(rows.fields) < len(rows.lines):
                    rows.fields.append([line])
            rows.addresses.append(address)
            if rows.times is not None:
                rows.times.append(time)
        return rows

    def _lean_log(self, lines: Sequence[str], first: int) -> Rows | None:
        """A log's batch read for its addresses (and times) alone, when every line allows it."""
        assert self.layout is not None
        name, at, times, needed = self._log_positions()
        if at is None or not needed:
            return None
        found = log_heads.addresses(self.layout, lines, name, at, needed, times=times if self.time else None)
        if found is None:
            return None
        kept = list(lines)
        return Rows(kept, list(range(first, first + len(kept))), found[0], None if found[1] is None else list(found[1]))

    def _read_header(self, line: str, number: int) -> None:
        self.header_line = line
        self.names = next(csv.reader([line], delimiter=self.separator), [])
        self._index = _column(self.names, self.column, number, "address")
        if self.time:
            self._time_index = _column(self.names, self.time, number, "time")

    def _log_header(self, line: str) -> bool:
        assert self.layout is not None
        declared = self.layout.header(line)
        if declared is None:
            return False
        if declared:
            self.names = list(declared)
        return True

    def _row(self, line: str, rows: Rows) -> tuple[str, Sequence[str]]:
        if self.form == "lines":
            return line.strip(), ()
        if self.form == "jsonl":
            return _json_row(line, self.column or "ip", self.time)
        if self.layout is not None:
            return self._log_row(line, rows)
        if self._index is None:  # no header: columns by number only
            self._index = _column(None, self.column, 0, "address")
            self._time_index = _column(None, self.time, 0, "time") if self.time else None
        cells = next(csv.reader([line], delimiter=self.separator), [])
        if self._index >= len(cells):
            raise InputError(f"the line has {len(cells)} fields, no column {self._index + 1}")
        time: tuple[str, ...] = ()
        if self._time_index is not None:
            time = (cells[self._time_index],) if self._time_index < len(cells) else ()
        return cells[self._index].strip(), time

    def _log_row(self, line: str, rows: Rows) -> tuple[str, Sequence[str]]:
        assert self.layout is not None
        name, at, times, _ = self._log_positions()
        fields = self.layout.split(line)
        if rows.fields is not None:
            rows.fields.append(fields)
        if at is None or at >= len(fields):
            raise InputError(f"the line has no {name} field")
        if not self.time:
            return self.layout.addresses[name](fields[at]), ()
        time = tuple(fields[index] if index is not None and index < len(fields) else "" for index in times)
        return self.layout.addresses[name](fields[at]), time

    def _log_positions(self) -> tuple[str, int | None, tuple[int | None, ...], int]:
        """The address field's name and place, the time fields' places, and how many fields reach them all (0: the
        address field is not named), in the names in force (a header line may change them); worked out once per
        list of names."""
        assert self.layout is not None
        names = self.names or []
        if self._positions is None or self._positions[0] is not names:
            name = self.column or next(iter(self.layout.addresses))
            place = {field: index for index, field in enumerate(names)}
            times = tuple(place.get(part) for part in self.layout.time)
            at = place.get(name)
            reach = [at, *times] if self.time else [at]
            needed = 0 if None in reach else max(index for index in reach if index is not None) + 1
            self._positions = (names, (name, at, times, needed))
        return self._positions[1]

    def instant(self) -> Callable[[Sequence[str]], float]:
        """How a row's time fields become epoch seconds."""
        if self.layout is not None and self.time == "log":
            return self.layout.instant
        return lambda texts: parse_time(texts[0])


def _spaced(text: str) -> bool:
    """Whether ``str.strip`` could take anything off a line of ``text`` (lines joined by line breaks): one scan a
    character (non-ASCII text: assumed so)."""
    return not text.isascii() or any(space in text for space in _SPACES)


def _column(names: Sequence[str] | None, column: str | None, number: int, what: str) -> int:
    """The 0-based index of a column given by name (in the header) or by 1-based number."""
    if column is None:
        if names is not None and what == "address":
            for candidate in ("ip", "address", "addr", "client_ip", "ip_address"):
                if candidate in names:
                    return names.index(candidate)
        return 0
    if column.isdigit() and int(column) >= 1:
        return int(column) - 1
    if names is None:
        raise InputError(f"the {what} column {column!r} is a name, and the file has no header: give its number")
    if column not in names:
        raise InputError(f"line {number}: the header has no column {column!r} (it has {', '.join(names[:20])})")
    return names.index(column)


def _json_row(line: str, path: str, time: str | None) -> tuple[str, Sequence[str]]:
    try:
        value: Any = json.loads(line)
    except ValueError as error:
        raise InputError(f"not JSON: {error}") from None
    except RecursionError:
        raise InputError("not JSON this reader takes: nested too deep") from None
    if not isinstance(value, dict):
        raise InputError("not a JSON object")
    address = _at(value, path)
    when = _at(value, time) if time else None
    return ("" if address is None else str(address)), (() if when is None else (str(when),))


def _at(value: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def parse_time(text: str) -> float:
    """Epoch seconds of an ISO 8601 time (no offset: UTC) or of an epoch number (seconds; from 10^11 on,
    milliseconds). ``ValueError`` for anything else."""
    stripped = text.strip()
    try:
        number = float(stripped)
    except ValueError:
        moment = datetime.fromisoformat(stripped)
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
    if not math.isfinite(number):
        raise ValueError(f"{text!r} is not a time")
    return number / 1000 if abs(number) >= 1e11 else number


EARLIEST: Final = -62_135_596_800.0  # 0001-01-01T00:00:00Z
LATEST: Final = 253_402_300_799.0  # 9999-12-31T23:59:59Z


def checked_instant(value: float) -> float:
    """``value`` when it is an instant of the years 1 to 9999 (what a date can show), else ``ValueError``."""
    if not EARLIEST <= value <= LATEST:
        raise ValueError(f"{value} is not an instant of the years 1 to 9999")
    return value
