"""Range files as users have them: the layouts detected, headers or none, and every row checked.

Layouts (detected; a folder's settings may force the header and name the columns):

- ``start, end, <metadata...>``: dotted IPv4, IPv6 text or integers (integers are IPv4 when the file's largest
  address fits in 32 bits, else IPv6), with or without a header;
- ``Netblock, start, end, <metadata...>``: the same behind a netblock column, recognised by its header;
- ``network, <metadata...>``: CIDR networks (the MaxMind GeoLite2 "blocks" layout);
and, before these, the line formats (``linefiles``), unless the settings force a header: ``choice`` tries them
first. A headerless file of one CIDR column is a list (column ``comment``); with a ``network`` header it is the
CIDR layout.

Comma or tab separated, quoted or not, cells trimmed, UTF-8 with or without BOM, LF or CRLF. A row that cannot
be used is a *problem* (line and reason) and the caller decides whether the load may skip it; a file that cannot
be read at all (not UTF-8, binary) raises ``FileError``. IPv4-mapped IPv6 ranges (``::ffff:1.2.3.0``, or mapped
integers as in IP2Location's IPv6 files) are read as the IPv4 ranges that lookups answer them as.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterable

from fencepost.core.formats.base import (
    FileError,
    FileSummary,
    Layout,
    ProblemSink,
    RangeSink,
    ReadOptions,
    add_range,
    check_size,
    metadata_names,
)
from fencepost.core.formats.cells import RowError, boundary, is_integer, looks_like_data, network, whole
from fencepost.core.formats.problems import Problem
from fencepost.core.space.addresses import TOP, V4, V6


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
            check_size(values)
            if self.layout is Layout.CIDR:
                add_range(self.ranges, *network(cells[0]), values)
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
        self.columns = metadata_names(self.layout, self.header, self.width, self.options)
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
        add_range(self.ranges, family, start, end, values)

    def finish(self, delimiter: str, unreadable: int) -> FileSummary:
        if self.layout is None:
            if unreadable:
                raise FileError(None, f"none of the file's rows could be read ({unreadable} unreadable)")
            raise FileError(None, "the file has a header but no ranges")
        family = V4 if self.integer_top <= TOP[V4] else V6
        for start, end, values in self.integer_rows:
            add_range(self.ranges, family, start, end, values)
        self.integer_rows.clear()
        return FileSummary(self.layout, delimiter, self.header is not None, self.columns, self.accepted)


def read_columns(
    name: str,
    text: Iterable[str],
    options: ReadOptions,
    ranges: RangeSink,
    problems: ProblemSink,
) -> FileSummary:
    """Read one object's text lines, of a column layout, into ``ranges``; rows that cannot be used go to
    ``problems``."""
    text = iter(text)
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
