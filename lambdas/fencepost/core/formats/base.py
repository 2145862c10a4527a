"""What every input format shares: the layout names, the options a folder's settings give, the summary of one
object read, the sinks its ranges and problems go to, and the errors that stop it.

A format module (``columns``, ``linefiles``, ``mmdb``) turns one object into ranges added to a ``RangeSink`` and
problems added to a ``ProblemSink``, and answers a ``FileSummary``; ``choice`` decides which one reads an object.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from fencepost.core.folders.limits import DEFAULT_MAX_DOCUMENT_BYTES, FolderLimits, Limits
from fencepost.core.formats.cells import RowError
from fencepost.core.formats.problems import Problem
from fencepost.core.space.addresses import MAPPED_FIRST, MAPPED_LAST, V6, unmapped
from fencepost.core.storage.items import oversized_metadata

# A range as a line format reads it: family, first address, last address, metadata
Record = tuple[int, int, int, tuple[str, ...]]

# Every CSV reader (range files, join tables) reads cells this large; a 1 MiB cell can never fit an item anyway.
csv.field_size_limit(1 << 20)


class Layout(Enum):
    START_END = "start,end"
    NETBLOCK = "netblock,start,end"
    CIDR = "network"
    RIR = "rir-delegated"
    LIST = "list"
    DROP_JSON = "spamhaus-drop-json"
    GEOFEED = "rfc8805-geofeed"
    PFX2AS = "caida-pfx2as"
    AWS = "aws-ip-ranges"
    GOOGLE = "google-cloud-json"
    ORACLE = "oracle-public-ip-ranges"
    FASTLY = "fastly-public-ip-list"

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
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES  # the reader's MAX_DOCUMENT_BYTES, as the folder lowers it
    # The reader's limits, as the folder lowers them: an object that opens a JSON object but is read by lines (a
    # DROP JSON file) is held to their max_line_bytes here, the line splitter having let a document's long line by
    reader_limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True, slots=True)
class FileSummary:
    layout: Layout
    delimiter: str
    header: bool
    columns: tuple[str, ...]
    rows: int  # ranges accepted
    stated: str | None = None  # the day the file says its data runs to, as written (an RIR version line's enddate)
    published: str | None = None  # when a JSON document says it was made, ISO 8601 (``json_layouts.DocumentFormat``)


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


def metadata_names(layout: Layout, header: Sequence[str] | None, width: int, options: ReadOptions) -> tuple[str, ...]:
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


def check_size(values: tuple[str, ...]) -> None:
    if (size := oversized_metadata(values)) is not None:
        raise RowError(f"metadata of {size} bytes does not fit a 400 KB DynamoDB item")


def add_range(ranges: RangeSink, family: int, start: int, end: int, values: tuple[str, ...]) -> None:
    if family == V6 and end >= MAPPED_FIRST and start <= MAPPED_LAST:
        for part in unmapped(family, start, end):
            ranges.add(*part, values)
    else:
        ranges.add(family, start, end, values)
