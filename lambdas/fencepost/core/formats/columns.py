"""Range files as users have them: the layouts detected, headers or none, and every row checked.

Layouts (detected; a folder's settings may force the header and name the columns):

- ``start, end, <metadata...>``: dotted IPv4, IPv6 text or integers (integers are IPv4 when the file's largest
  address fits in 32 bits, else IPv6), with or without a header;
- ``Netblock, start, end, <metadata...>``: the same behind a netblock column, recognised by its header;
- ``network, <metadata...>``: CIDR networks (the MaxMind GeoLite2 "blocks" layout);
- line formats (``core.linefiles``, unless the settings force a header): RIR delegated statistics files
  (``core.registry``) and lists of networks or addresses, one a line (``core.netsets``). A headerless file of
  one CIDR column is a list (column ``comment``); with a ``network`` header it is the CIDR layout.

Comma or tab separated, quoted or not, cells trimmed, UTF-8 with or without BOM, LF or CRLF. A row that cannot
be used is a *problem* (line and reason) and the caller decides whether the load may skip it; a file that cannot
be read at all (not UTF-8, binary) raises ``FileError``. IPv4-mapped IPv6 ranges (``::ffff:1.2.3.0``, or mapped
integers as in IP2Location's IPv6 files) are read as the IPv4 ranges that lookups answer them as.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from fencepost.core.addresses import MAPPED_FIRST, MAPPED_LAST, TOP, V4, V6, unmapped
from fencepost.core.formats.cells import RowError, boundary, is_integer, looks_like_data, network, whole
from fencepost.core.formats.linefiles import LineFormat, detect
from fencepost.core.items import oversized_metadata
from fencepost.core.limits import FolderLimits
from fencepost.core.problems import Problem

csv.field_size_limit(1 << 20)  # a cell may be large; a 1 MiB cell can never fit an item anyway


class Layout(Enum):
    START_END = "start,end"
    NETBLOCK = "netblock,start,end"
    CIDR = "network"
    RIR = "rir-delegated"
    LIST = "list"

    @property
    def metadata_from(self) -> int:
        """Index of the first metadata column (0 for the line formats, whose columns the format names)."""
        return {Layout.START_END: 2, Layout.NETBLOCK: 3, Layout.CIDR: 1}.get(self, 0)


class FileError(Exception):
    """The whole object cannot be read; ``line`` is where that became clear."""

    def __init__(self, line: int | None, reason: str) -> None:
        super().__init__(f"line {line}: {reason}" if line else reason)
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """What a folder's settings may say about its files."""

    header: bool | None = None  # None: detect
    columns: tuple[str, ...] | None = None  # names of the metadata columns, in order
    limits: FolderLimits = field(default_factory=FolderLimits)  # the limits it lowers (the reader applies them)


@dataclass(frozen=True, slots=True)
class FileSummary:
    layout: Layout
    delimiter: str
    header: bool
    columns: tuple[str, ...]
    rows: int  # ranges accepted


class RangeSink(Protocol):
    def add(self, family: int, start: int, end: int, values: tuple[str, ...]) -> None: ...


class ProblemSink(Protocol):
    def add(self, problem: Problem) -> None: ...


def text_lines(lines: Iterable[bytes]) -> Iterator[str]:
    """Lines of UTF-8 text (a byte-order mark at the start dropped); raises ``FileError`` at the first that is not."""
    for number, raw in enumerate(lines, 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise FileError(
                number, f"not UTF-8 text (byte 0x{raw[error.start]:02x} at column {error.start + 1})"
            ) from None
        yield text[1:] if number == 1 and text.startswith("\ufeff") else text


def _metadata_names(layout: Layout, header: Sequence[str] | None, width: int, options: ReadOptions) -> tuple[str, ...]:
    first = layout.metadata_from
    count = width - first
    if options.columns is not None:
        if len(options.columns) != count:
            raise FileError(
                None,
                f"the settings name {len(options.columns)} columns but the file has {count} metadata columns",
            )
        names = list(options.columns)
    elif header is not None:
        names = [name or f"col{first + index + 1}" for index, name in enumerate(header[first:])]
    else:
        names = [f"col{first + index + 1}" for index in range(count)]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise FileError(1 if header is not None else None, f"duplicate column name {name!r}")
        seen.add(name)
    return tuple(names)


def _check_size(values: tuple[str, ...]) -> None:
    if (size := oversized_metadata(values)) is not None:
        raise RowError(f"metadata of {size} bytes does not fit a 400 KB DynamoDB item")


def _add(ranges: RangeSink, family: int, start: int, end: int, values: tuple[str, ...]) -> None:
    if family == V6 and end >= MAPPED_FIRST and start <= MAPPED_LAST:
        for part in unmapped(family, start, end):
            ranges.add(*part, values)
    else:
        ranges.add(family, start, end, values)


class _FileReader:
    """The state of reading one object: its layout once known, and the integer rows held back until the end.

    Rows with integer addresses wait for the end of the file, whose largest address decides their family.
    """

    def __init__(self, name: str, options: ReadOptions, ranges: RangeSink, problems: ProblemSink) -> None:
        self.name = name
        self.options = options
        self.ranges = ranges
        self.problems = problems
        self.header: list[str] | None = None
        self.layout: Layout | None = None
        self.first_value = 0  # the layout's first metadata column
        self.width = 0
        self.columns: tuple[str, ...] = ()
        self.integer_form: bool | None = None
        self.integer_rows: list[tuple[int, int, tuple[str, ...]]] = []
        self.integer_top = 0
        self.accepted = 0

    def row(self, cells: list[str], line: int) -> None:
        if self.layout is None and not self._start(cells, line):
            return
        assert self.layout is not None
        if len(cells) != self.width:
            self.problems.add(Problem(self.name, line, f"{len(cells)} columns where the file has {self.width}"))
            return
        first = self.first_value
        values = tuple(cells[first:])
        try:
            _check_size(values)
            if self.layout is Layout.CIDR:
                _add(self.ranges, *network(cells[0]), values)
            else:
                self._start_end(cells[first - 2], cells[first - 1], values)
        except RowError as error:
            self.problems.add(Problem(self.name, line, str(error)))
            return
        self.accepted += 1

    def _start(self, cells: list[str], line: int) -> bool:
        """Settle the header and the layout at the first rows; False when this row was the header."""
        is_header = self.options.header if self.options.header is not None else not looks_like_data(cells[0])
        if is_header and self.header is None:
            self.header = cells
            return False
        if self.header is not None and self.header[0].lower() == "netblock":
            self.layout = Layout.NETBLOCK
        elif "/" in cells[0]:
            self.layout = Layout.CIDR
        else:
            self.layout = Layout.START_END
        self.first_value = self.layout.metadata_from
        self.width = len(self.header) if self.header is not None else len(cells)
        if self.width < self.layout.metadata_from:
            raise FileError(line, f"a {self.layout.value} file needs at least {self.layout.metadata_from} columns")
        self.columns = _metadata_names(self.layout, self.header, self.width, self.options)
        return True

    def _start_end(self, low: str, high: str, values: tuple[str, ...]) -> None:
        integers = is_integer(low)
        if integers != is_integer(high):
            raise RowError("start and end are written differently (one an integer, one not)")
        if self.integer_form is None:
            self.integer_form = integers
        elif self.integer_form != integers:
            raise RowError("integer and text addresses are mixed in one file")
        if integers:
            start, end = whole(low, "start"), whole(high, "end")
            if end > TOP[V6]:
                raise RowError(f"{end} is larger than any IPv6 address")
            if start > end:
                raise RowError(f"start {start} is after end {end}")
            self.integer_rows.append((start, end, values))
            self.integer_top = max(self.integer_top, end)
            return
        family, start = boundary(low, "start")
        end_family, end = boundary(high, "end")
        if family != end_family:
            raise RowError(f"start {low!r} and end {high!r} are of different address families")
        if start > end:
            raise RowError(f"start {low} is after end {high}")
        _add(self.ranges, family, start, end, values)

    def finish(self, delimiter: str, unreadable: int) -> FileSummary:
        if self.layout is None:
            if unreadable:
                raise FileError(None, f"none of the file's rows could be read ({unreadable} unreadable)")
            raise FileError(None, "the file has a header but no ranges")
        family = V4 if self.integer_top <= TOP[V4] else V6
        for start, end, values in self.integer_rows:
            _add(self.ranges, family, start, end, values)
        self.integer_rows.clear()
        return FileSummary(self.layout, delimiter, self.header is not None, self.columns, self.accepted)


def read_ranges(
    name: str,
    lines: Iterable[bytes],
    options: ReadOptions,
    ranges: RangeSink,
    problems: ProblemSink,
) -> FileSummary:
    """Read one object's lines into ``ranges``; rows that cannot be used go to ``problems``."""
    text: Iterator[str] = text_lines(lines)
    head: list[str] = []  # the lines read to recognise a line format, read again by the column layouts
    if options.header is not True:
        line_format = detect(text, head)
        if line_format is not None:
            lines_again = itertools.chain(head, text)
            return _read_lines(name, lines_again, line_format, options=options, ranges=ranges, problems=problems)
    text = itertools.chain(head, text)
    first_line = next((line for line in text if line.strip()), None)
    if first_line is None:
        raise FileError(None, "the file is empty")
    delimiter = "\t" if "\t" in first_line else ","
    reader = csv.reader(itertools.chain([first_line], text), delimiter=delimiter, skipinitialspace=True)
    state = _FileReader(name, options, ranges, problems)
    unreadable = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            unreadable += 1
            problems.add(Problem(name, reader.line_num, f"unreadable row: {error}"))
            continue
        if "\0" in "".join(row):
            raise FileError(reader.line_num, "the file holds NUL bytes: it is binary, not text")
        cells = [cell.strip() for cell in row]
        if any(cells):
            state.row(cells, reader.line_num)
    return state.finish(delimiter, unreadable)


def _read_lines(
    name: str,
    text: Iterable[str],
    line_format: LineFormat,
    *,
    options: ReadOptions,
    ranges: RangeSink,
    problems: ProblemSink,
) -> FileSummary:
    """A line format's lines, one range (or none) a line."""
    layout, columns = Layout(line_format.layout), line_format.columns
    if options.columns is not None:  # a renaming, checked as for a headerless file of the format's width
        columns = _metadata_names(layout, None, len(columns), options)
    accepted = rejected = 0
    for number, line in enumerate(text, 1):
        if "\0" in line:
            raise FileError(number, "the file holds NUL bytes: it is binary, not text")
        try:
            record = line_format.record_of(line)
            if record is None:
                continue
            _check_size(record[3])
        except RowError as error:
            rejected += 1
            problems.add(Problem(name, number, str(error)))
            continue
        _add(ranges, *record)
        accepted += 1
    if not accepted and not rejected:
        raise FileError(None, f"the file ({layout.value} format) has no ranges")
    return FileSummary(layout, line_format.delimiter, False, columns, accepted)
