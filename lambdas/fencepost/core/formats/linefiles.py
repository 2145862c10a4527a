"""The formats read a line at a time rather than as columns: each one's signature, record parser, separator and
columns, and the reading of a file of one of them.

A file is of a line format when its first line that is not blank or a comment (``#``, ``;``) has the format's
signature (``choice`` asks each format of ``choice.LINE_FORMATS`` in turn): a delegated file's version line or
record (``rir_stats``), one address or network without comma or tab (``netsets``), a JSON object naming a
``cidr`` (``drop_json``), an RFC 8805 geofeed entry (``geofeed``) or a CAIDA prefix-to-AS entry (``pfx2as``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final, NamedTuple

from fencepost.core.formats import drop_json, geofeed, netsets, pfx2as, rir_stats
from fencepost.core.formats.base import (
    FileError,
    FileSummary,
    Layout,
    ProblemSink,
    RangeSink,
    ReadOptions,
    Record,
    add_range,
    check_size,
    metadata_names,
)
from fencepost.core.formats.cells import RowError
from fencepost.core.formats.problems import Problem


class LineFormat(NamedTuple):
    layout: Layout
    looks_like: Callable[[str], bool]  # whether a file's first line that is not a comment is of this format
    record_of: Callable[[str], Record | None]  # a line's range; None when skipped; raises ``RowError``
    delimiter: str
    columns: tuple[str, ...]


RIR: Final = LineFormat(
    Layout.RIR, rir_stats.looks_like_rir, rir_stats.rir_record, rir_stats.DELIMITER, rir_stats.COLUMNS
)
LIST: Final = LineFormat(Layout.LIST, netsets.looks_like_list, netsets.list_record, netsets.DELIMITER, netsets.COLUMNS)
DROP_JSON: Final = LineFormat(
    Layout.DROP_JSON, drop_json.looks_like_drop_json, drop_json.drop_json_record, drop_json.DELIMITER, drop_json.COLUMNS
)
GEOFEED: Final = LineFormat(
    Layout.GEOFEED, geofeed.looks_like_geofeed, geofeed.geofeed_record, geofeed.DELIMITER, geofeed.COLUMNS
)
PFX2AS: Final = LineFormat(
    Layout.PFX2AS, pfx2as.looks_like_pfx2as, pfx2as.pfx2as_record, pfx2as.DELIMITER, pfx2as.COLUMNS
)


def read_lines(
    name: str,
    text: Iterable[str],
    line_format: LineFormat,
    *,
    options: ReadOptions,
    ranges: RangeSink,
    problems: ProblemSink,
) -> FileSummary:
    """A line format's lines, one range (or none) a line."""
    layout, columns = line_format.layout, line_format.columns
    if options.columns is not None:  # a renaming, checked as for a headerless file of the format's width
        columns = metadata_names(layout, None, len(columns), options)
    accepted = rejected = 0
    for number, line in enumerate(text, 1):
        if "\0" in line:
            raise FileError(number, "the file holds NUL bytes: it is binary, not text")
        try:
            record = line_format.record_of(line)
            if record is None:
                continue
            check_size(record[3])
        except RowError as error:
            rejected += 1
            problems.add(Problem(name, number, str(error)))
            continue
        add_range(ranges, *record)
        accepted += 1
    if not accepted and not rejected:
        raise FileError(None, f"the file ({layout.value} format) has no ranges")
    return FileSummary(layout, line_format.delimiter, False, columns, accepted)
