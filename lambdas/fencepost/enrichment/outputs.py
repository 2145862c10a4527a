"""What a job writes: every input row, in order, with every original field, and its answers appended.

- ``csv`` / ``tsv`` after a CSV or TSV input (or one address a line): each line as it was read, then the answer
  columns (``enrichment.shape.Shape.columns``), cells a spreadsheet would run as formulas written as text
  (``core.versions.exports.safe_cell``) unless ``raw``; the header gets the columns' names;
- ``csv`` / ``tsv`` after a log: the log's fields, then the answer columns (a line with more fields than the
  layout names keeps the extra ones after the answers, so the named columns stay aligned);
- ``log`` after a log: each line as it was read, then the answers as more fields of the log's own syntax
  (``LogLayout.field``: quoted in ALB and S3 logs, percent-encoded in the others; ``-`` for no value), and for
  CloudFront and VPC flow logs a header line naming them; no field is split or written again, so this is the fast
  way to enrich a log;
- ``jsonl``: each JSON object with one key per prefix (a dataset, ``all``, ``first``) holding its answer; a log's
  line becomes an object of its named fields first.

Each distinct answer is rendered once (``Batch.objects``) and reused for every row it answers; a row with no address
gets empty columns (``jsonl``: no key).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import numpy as np

from fencepost.core.logs.aws_layouts import field_names
from fencepost.core.logs.layout import encoded
from fencepost.core.versions.exports import safe_cell
from fencepost.enrichment.engine import MAX_KEPT, Batch
from fencepost.enrichment.inputs import Reader, Rows
from fencepost.enrichment.shape import Column, Objects

FORMS: Final = ("csv", "tsv", "jsonl", "log")
_COMPACT: Final = (",", ":")
_QUOTED: Final = re.compile(r'[,"\r\n]')  # a CSV cell holding one of these is quoted


class OutputError(ValueError):
    """An output that cannot be written from this input; the message says why."""


def _tsv(value: str) -> str:
    return value.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def _csv(value: str) -> str:
    if _QUOTED.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


class Writer:
    def __init__(self, form: str, reader: Reader, columns: Sequence[Column], *, raw: bool = False) -> None:
        if form not in FORMS:
            raise OutputError(f"unknown output format {form!r}: the formats are {', '.join(FORMS)}")
        if form == "jsonl" and reader.form in ("csv", "tsv"):
            raise OutputError(f"a {reader.form} input is written as csv or tsv")
        if form != "jsonl" and reader.form == "jsonl":
            raise OutputError("a jsonl input is written as jsonl")
        if form == "log" and reader.layout is None:
            raise OutputError(f"a {reader.form} input is no log: it is written as csv, tsv or jsonl")
        self.form, self.reader, self.columns = form, reader, list(columns)
        self.separator = "\t" if form == "tsv" else ","
        shown: Callable[[str], str] = str if raw else safe_cell
        # A log's own fields, when this writes them as CSV or TSV cells (its "-", no value, left as it is)
        self.field: Callable[[str], str] = lambda value: value if value == "-" else shown(value)
        if reader.layout is not None and form == "log":
            layout = reader.layout
            self.separator = layout.separator
            self.cell: Callable[[str], str] = lambda value: layout.field(shown(value))
            reader.whole_fields = False  # the lines are written as they are: only the fields up to the address read
        elif form == "tsv":
            self.cell = lambda value: shown(_tsv(value))
        elif reader.layout is not None:  # the csv module quotes a log's rows
            self.cell = shown
        else:
            self.cell = lambda value: _csv(shown(value))
        self._rendered: dict[int, Any] = {}
        self._empty = self._render({})
        self._header_written = False

    def without_header(self) -> Writer:
        """This writer with no header line: for a part of a file whose first part writes it."""
        self._header_written = True
        return self

    def header(self) -> str:
        """The header line (written once, before the first rows), or "" when the output has none."""
        if self._header_written or self.form == "jsonl":
            return ""
        self._header_written = True
        names = [column.name for column in self.columns]
        escape = _tsv if self.form == "tsv" else _csv
        if self.reader.form in ("csv", "tsv"):
            if self.reader.header_line is None:
                return ""
            return self.reader.header_line + "".join(self.separator + escape(name) for name in names) + "\n"
        if self.form == "log" and self.reader.layout is not None:
            return self.reader.layout.heading([*(self.reader.names or ()), *map(encoded, names)])
        first = ["ip"] if self.reader.form == "lines" else list(self.reader.names or ())
        return self.separator.join(escape(name) for name in [*first, *names]) + "\n"

    def _render(self, objects: Objects) -> Any:
        if self.form == "jsonl":
            return ",".join(
                json.dumps(prefix) + ":" + json.dumps(body, separators=_COMPACT) for prefix, body in objects.items()
            )
        cells = [self.cell(column.cell(objects)) for column in self.columns]
        if self.reader.layout is not None and self.form != "log":
            return cells
        return "".join(self.separator + cell for cell in cells)

    def _answers(self, batch: Batch) -> dict[int, Any]:
        """This batch's answers, rendered (each answer once in a job, but fresh ones)."""
        if len(self._rendered) > MAX_KEPT:
            self._rendered.clear()
        rendered: dict[int, Any] = {}
        for known, objects in batch.objects.items():
            made = self._rendered.get(known)
            if made is None:
                made = self._render(objects)
                if known not in batch.fresh:
                    self._rendered[known] = made
            rendered[known] = made
        return rendered

    def log_tails(self, batch: Batch) -> list[bytes]:
        """For a log written as a log: what follows each row's line, as bytes (its answers and a line break)."""
        rendered = self._answers(batch)
        ended = {known: (more + "\n").encode("utf-8", "surrogateescape") for known, more in rendered.items()}
        return _per_row(batch, ended, (self._empty + "\n").encode("utf-8", "surrogateescape"))

    def rows(self, batch: Batch, rows: Rows) -> str:
        """The text of a batch's rows (each line ending in a newline)."""
        rendered = self._answers(batch)
        text = self.header()
        if self.reader.layout is not None and self.form != "log":
            return text + self._log_rows(rows, _per_row(batch, rendered, self._empty))
        if self.form == "jsonl":
            appended = _per_row(batch, rendered, self._empty)
            return text + "".join(_joined(line, more) for line, more in zip(rows.lines, appended, strict=True))
        lines = rows.lines
        if self.reader.form == "lines" and _special(lines, "\t" if self.form == "tsv" else ',"'):
            lines = [(_tsv if self.form == "tsv" else _csv)(line) for line in lines]
        ended = {known: more + "\n" for known, more in rendered.items()}
        out = [""] * (2 * len(lines))  # each line, then its answers and its line break: one join for the batch
        out[0::2] = lines
        out[1::2] = _per_row(batch, ended, self._empty + "\n")
        return text + "".join(out)

    def _log_rows(self, rows: Rows, appended: Sequence[Any]) -> str:
        assert rows.fields is not None
        names = self.reader.names or []
        if self.form == "jsonl":
            out = []
            for fields, more in zip(rows.fields, appended, strict=True):
                line = json.dumps(dict(zip(field_names(names, len(fields)), fields, strict=True)), separators=_COMPACT)
                out.append(_joined(line, more))
            return "".join(out)
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=self.separator, lineterminator="\n")
        width = len(names)
        guarded = self.field
        shown = (lambda value: guarded(_tsv(value))) if self.form == "tsv" else guarded
        writer.writerows(
            [*map(shown, fields[:width]), *[""] * (width - len(fields)), *more, *map(shown, fields[width:])]
            for fields, more in zip(rows.fields, appended, strict=True)
        )
        return buffer.getvalue()


def _per_row(batch: Batch, rendered: Mapping[int, Any], empty: Any) -> list[Any]:
    """Each row's rendered answer (``empty`` where it has none), picked for the whole batch at once."""
    known = np.array(sorted(batch.objects), dtype=np.int64)
    table = np.empty(len(known) + 1, dtype=object)
    for index, each in enumerate(known.tolist()):
        table[index] = rendered[each]
    table[len(known)] = empty
    at = np.searchsorted(known, batch.ids)
    at[batch.ids < 0] = len(known)
    picked: list[Any] = table[at].tolist()
    return picked


def _special(lines: Sequence[str], characters: str) -> bool:
    """Whether any line holds one of ``characters`` (or a carriage return): one scan of the batch."""
    whole = "\n".join(lines)
    return "\r" in whole or any(character in whole for character in characters)


def _joined(line: str, more: str) -> str:
    """A JSON object's line with more members: ``{"a":1}`` and ``"geo":{...}`` make ``{"a":1,"geo":{...}}``; a line
    that is no object (counted as a bad row) is written as it was."""
    body = line.rstrip()
    if not more or not body.endswith("}"):
        return line + "\n"
    inside = body[:-1].rstrip()
    return inside + ("" if inside.endswith("{") else ",") + more + "}\n"
