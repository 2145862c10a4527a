"""The one place that chooses how an object is read.

1. By its key: a MaxMind DB (``.mmdb``, gzipped or not) or a tar archive holding one is read whole (``mmdb``,
   through ``archives``); every other object is text, read line by line (gzip unpacked by its magic bytes).
   A text object's lines are each at most ``MAX_LINE_BYTES``, but for a JSON document's (``lines``): one that
   opens a JSON object yet is read by lines is held to it here.
2. By its first line that is not blank or a comment (``#``, ``;``), unless the folder's settings force a header:
   the first of ``LINE_FORMATS`` whose signature it has reads the file (``linefiles``).
3. Otherwise, when that line opens a JSON object, one JSON document whose keys say whose it is
   (``json_documents``: AWS, Google, Oracle, Fastly).
4. Otherwise the column layouts (``columns``), which settle their layout from the header and the first row.

A new line format is a module with a signature and a record parser, named in ``base.Layout`` and listed in
``LINE_FORMATS`` here; a new JSON document format is a ``json_layouts.DocumentFormat`` listed in
``json_documents.DOCUMENT_FORMATS``; a new whole-file format adds its suffixes to ``WHOLE_SUFFIXES``.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Iterator
from typing import Final

from fencepost.core.folders.limits import Limits
from fencepost.core.formats import json_documents, linefiles, rir_stats
from fencepost.core.formats.archives import ARCHIVE_SUFFIXES, MMDB_SUFFIXES
from fencepost.core.formats.base import FileError, FileSummary, ProblemSink, RangeSink, ReadOptions, text_lines
from fencepost.core.formats.columns import read_columns
from fencepost.core.formats.linefiles import LineFormat
from fencepost.core.formats.netsets import COMMENTS

WHOLE_SUFFIXES: Final = MMDB_SUFFIXES + ARCHIVE_SUFFIXES
# In the order they are tried: a list line is no RIR line, and a JSON object neither.
LINE_FORMATS: Final = (linefiles.RIR, linefiles.LIST, linefiles.DROP_JSON, linefiles.GEOFEED, linefiles.PFX2AS)
MAX_LEADING_COMMENTS: Final = 10_000  # comment lines before the first entry (FireHOL headers run to ~100)


def reads_whole(key: str) -> bool:
    """An object read whole as a MaxMind DB rather than line by line: ``.mmdb`` (gzipped or not) or a tar archive."""
    return key.lower().endswith(WHOLE_SUFFIXES)


def line_format(text: Iterator[str], head: list[str]) -> LineFormat | None:
    """The line format of a file whose lines ``text`` gives, if any; the lines read are appended to ``head``."""
    for line in text:
        head.append(line)
        stripped = line.strip()
        if not stripped or stripped.startswith(COMMENTS):
            if len(head) > MAX_LEADING_COMMENTS:
                return None
            continue
        return next((candidate for candidate in LINE_FORMATS if candidate.looks_like(stripped)), None)
    return None


def _first_entry(text: Iterator[str], head: list[str]) -> None:
    """Read lines into ``head`` up to the first that is not blank."""
    for line in text:
        head.append(line)
        if line.strip():
            return


def _held_to_lines(head: list[str], text: Iterator[str], limits: Limits) -> Iterable[str]:
    """The lines, each held to ``max_line_bytes`` when the object opens a JSON object (``lines.split_lines`` let
    its lines run to a document's length); as they are otherwise (the splitter held them)."""
    first = next((line for line in head if line.strip()), "")
    lines = itertools.chain(head, text)
    return _held(lines, limits) if json_documents.looks_like_document(first) else lines


def _held(lines: Iterable[str], limits: Limits) -> Iterator[str]:
    most = limits.max_line_bytes
    for number, line in enumerate(lines, 1):
        if len(line) > most // 4 and len(line.encode("utf-8")) > most:  # a character is at most 4 bytes
            raise FileError(number, limits.line_too_long())
        yield line


def read_ranges(
    name: str,
    lines: Iterable[bytes],
    options: ReadOptions,
    ranges: RangeSink,
    problems: ProblemSink,
) -> FileSummary:
    """Read one text object's lines into ``ranges``, in the format chosen; rows that cannot be used go to
    ``problems``. Raises ``base.FileError`` for an object that cannot be read at all."""
    text: Iterator[str] = text_lines(lines)
    head: list[str] = []  # the lines read to recognise a line format, read again by the column layouts
    if options.header is not True:
        chosen = line_format(text, head)
        if chosen is not None:
            lines_read = _held_to_lines(head, text, options.reader_limits)
            summary = linefiles.read_lines(name, lines_read, chosen, options=options, ranges=ranges, problems=problems)
            if chosen is linefiles.RIR:  # its version line (the line that chose the format) states the data's day
                summary = dataclasses.replace(summary, stated=rir_stats.version_enddate(head[-1]))
            return summary
        if head and json_documents.looks_like_document(head[-1]):
            return json_documents.read_document(name, itertools.chain(head, text), options, ranges, problems)
    else:
        _first_entry(text, head)
    return read_columns(name, _held_to_lines(head, text, options.reader_limits), options, ranges, problems)
