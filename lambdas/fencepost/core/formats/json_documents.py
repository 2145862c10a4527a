"""Whole JSON documents of networks, as cloud and CDN providers publish them: AWS ``ip-ranges.json``
(``aws_ranges``), Google ``cloud.json`` (``google_ranges``), Oracle ``public_ip_ranges.json`` (``oracle_ranges``),
Fastly's public IP list (``fastly_ranges``).

A text object whose first line that is not blank starts with ``{`` (and is no DROP JSON line) is read as one JSON
document, at most ``MAX_DOCUMENT_BYTES`` of it; its top-level keys say whose layout it is. Each entry's network is
a range; an entry without a usable network is a problem named by where it is (``prefixes[3]``), with no line. A
network listed more than once (AWS lists a prefix under each of its services) is one range, each column holding
the entries' distinct values joined by spaces (``AMAZON EC2``): the later entry would otherwise hide the earlier.
The document's own timestamp, where its layout has one, is the summary's ``published`` (``core.versions.data_dates``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final

from fencepost.core.formats import aws_ranges, fastly_ranges, google_ranges, oracle_ranges
from fencepost.core.formats.base import (
    FileError,
    FileSummary,
    ProblemSink,
    RangeSink,
    ReadOptions,
    add_range,
    check_size,
    metadata_names,
)
from fencepost.core.formats.cells import RowError, network
from fencepost.core.formats.json_layouts import DocumentFormat
from fencepost.core.formats.problems import Problem

DOCUMENT_FORMATS: Final = (aws_ranges.FORMAT, google_ranges.FORMAT, oracle_ranges.FORMAT, fastly_ranges.FORMAT)
_KNOWN: Final = "AWS ip-ranges.json, Google cloud.json, Oracle public_ip_ranges.json or Fastly's public IP list"

Key = tuple[int, int, int]


def looks_like_document(line: str) -> bool:
    """Whether a file's first line that is not blank opens a JSON object."""
    return line.lstrip().startswith("{")


def _document(text: Iterable[str], most: int) -> Any:
    parts: list[str] = []
    size = 0
    for number, line in enumerate(text, 1):
        size += len(line.encode("utf-8"))
        if size > most:
            raise FileError(number, f"a JSON document larger than {most:,} bytes (MAX_DOCUMENT_BYTES) is not read")
        parts.append(line)
    try:
        return json.loads("".join(parts))
    except json.JSONDecodeError as error:
        raise FileError(error.lineno, f"not valid JSON: {error.msg} (column {error.colno})") from None
    except RecursionError:
        raise FileError(None, "not valid JSON: nested too deeply") from None


def _format(document: Any) -> DocumentFormat:
    if isinstance(document, dict):
        for candidate in DOCUMENT_FORMATS:
            if candidate.is_one(document):
                return candidate
        keys = ", ".join(sorted(str(key) for key in document)[:8])
        raise FileError(None, f"a JSON document with the keys {keys[:200]}: not {_KNOWN}")
    raise FileError(None, f"a JSON document that is not an object: not {_KNOWN}")


def _merged(values: list[tuple[str, ...]]) -> tuple[str, ...]:
    """Each column's distinct non-empty values, in the order found, joined by spaces."""
    return tuple(" ".join(dict.fromkeys(cell for cell in column if cell)) for column in zip(*values, strict=True))


def _ranges(
    name: str, chosen: DocumentFormat, document: dict[str, Any], problems: ProblemSink
) -> tuple[dict[Key, list[tuple[str, ...]]], int]:
    """The entries' values by network, and how many entries were problems."""
    found: dict[Key, list[tuple[str, ...]]] = {}
    rejected = 0
    for where, cidr, values in chosen.entries(document):
        try:
            if not isinstance(cidr, str):
                raise RowError("no network (a string in CIDR form)")
            found.setdefault(network(cidr.strip()), []).append(values)
        except RowError as error:
            rejected += 1
            problems.add(Problem(name, None, f"{where}: {error}"))
    return found, rejected


def read_document(
    name: str, text: Iterable[str], options: ReadOptions, ranges: RangeSink, problems: ProblemSink
) -> FileSummary:
    """A JSON document's networks into ``ranges``; raises ``FileError`` for one that cannot be read at all."""
    document = _document(text, options.max_document_bytes)
    chosen = _format(document)
    columns = chosen.columns
    if options.columns is not None:  # a renaming, checked as for a headerless file of the format's width
        columns = metadata_names(chosen.layout, None, len(columns), options)
    found, rejected = _ranges(name, chosen, document, problems)
    accepted = 0
    for (family, first, last), values in found.items():
        merged = _merged(values) if columns else ()
        try:
            check_size(merged)
        except RowError as error:
            problems.add(Problem(name, None, str(error)))
            continue
        add_range(ranges, family, first, last, merged)
        accepted += 1
    if not found and not rejected:
        raise FileError(None, f"the file ({chosen.layout.value} format) has no ranges")
    return FileSummary(chosen.layout, "", False, columns, accepted, published=chosen.published(document))
