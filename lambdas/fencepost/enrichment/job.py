"""One enrichment job: a stream of lines in, the same rows with their answers out, and a summary.

The input is read a block at a time (gzip when its first bytes say so), cut into lines, and handed on in batches of
``batch_rows``: each batch is read (``enrichment.inputs``), its rows' instants taken when rows are answered as of
their own time, enriched (``enrichment.engine``) and written (``enrichment.outputs``) before the next is read, so
memory holds one batch whatever the input's size.

Nothing in a row stops the job: a row with no address, an invalid one, or a time that cannot be read is written with
empty answers and counted (the first ``SHOWN_BAD`` with their line numbers in the summary). A file that is not what
it was said to be stops it with the reason and the line: a ``.gz`` that is no gzip, a gzip cut short, or a layout
that none of its first ``LAYOUT_CHECK_ROWS`` rows fit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from fencepost.enrichment import log_bytes
from fencepost.enrichment.engine import Batch, Enricher
from fencepost.enrichment.input_lines import Counted, JobError, byte_lines, text_lines
from fencepost.enrichment.inputs import Reader, Rows, checked_instant
from fencepost.enrichment.outputs import Writer

BATCH_ROWS: Final = 65_536
SHOWN_BAD: Final = 20
LAYOUT_CHECK_ROWS: Final = 1_000


class RowWriter(Protocol):
    """What a job writes its rows with: text (``enrichment.outputs.Writer``), or a file of its own
    (``enrichment.parquet_output.ParquetOutput``, whose ``rows`` return no text)."""

    def header(self) -> str: ...
    def rows(self, batch: Batch, rows: Rows) -> str: ...
    def without_header(self) -> RowWriter: ...


@dataclass(slots=True)
class Summary:
    rows: int = 0
    lines: int = 0  # every line read, header and comment lines too
    bad: int = 0
    first_bad: list[dict[str, Any]] = field(default_factory=list)
    versions: dict[str, dict[int, int]] = field(default_factory=dict)  # dataset: version: rows it answered
    no_version: dict[str, int] = field(default_factory=dict)  # dataset: rows no kept version answered then
    bytes_in: int = 0
    bytes_out: int = 0
    seconds: float = 0.0

    def add_bad(self, number: int, reason: str) -> None:
        self.bad += 1
        if len(self.first_bad) < SHOWN_BAD:
            self.first_bad.append({"line": number, "reason": reason})

    def as_dict(self) -> dict[str, Any]:
        rate = self.rows / self.seconds if self.seconds else 0.0
        return {
            "rows": self.rows,
            "bad_rows": self.bad,
            "first_bad_rows": self.first_bad,
            "versions": {name: {str(k): v for k, v in sorted(found.items())} for name, found in self.versions.items()},
            "no_version_at": self.no_version,
            "seconds": round(self.seconds, 3),
            "rows_per_second": round(rate),
            "megabytes_in_per_second": round(self.bytes_in / 1e6 / self.seconds, 1) if self.seconds else 0.0,
            "bytes_in": self.bytes_in,
            "bytes_out": self.bytes_out,
        }


@dataclass(slots=True)
class Job:
    reader: Reader
    writer: RowWriter
    enricher: Enricher
    as_of: float | None = None  # every row answered by the version live then (None: now), unless rows carry times
    batch_rows: int = BATCH_ROWS
    progress: Callable[[Summary], None] | None = None
    lean: bool = True  # an ALB log written as a log is read as bytes (``enrichment.log_bytes``); False: as text

    def run(self, raw: IO[bytes], name: str, write: Callable[[bytes], Any]) -> Summary:
        summary = Summary()
        started = time.perf_counter()
        source = Counted(raw)
        as_bytes = self.lean and log_bytes.applies(self.reader, self.writer)
        number = (self._bytes if as_bytes else self._text)(source, name, summary, write, started)
        header = self.writer.header()  # an input with no row still gets its header
        if header:
            write(header.encode("utf-8", "surrogateescape"))
        summary.lines = number - 1
        summary.bytes_in = source.count
        summary.seconds = time.perf_counter() - started
        return summary

    def _text(self, source: Counted, name: str, summary: Summary, write: Callable[[bytes], Any], started: float) -> int:
        number = 1
        pending: list[str] = []
        for lines in text_lines(source, name, cr=self.reader.spans_lines):
            pending += lines
            while len(pending) >= self.batch_rows:
                number = self._batch(pending[: self.batch_rows], number, summary, write, more=True)
                del pending[: self.batch_rows]
            summary.seconds = time.perf_counter() - started
        if pending or self.reader.held:
            number = self._batch(pending, number, summary, write)
        return number

    def _bytes(
        self, source: Counted, name: str, summary: Summary, write: Callable[[bytes], Any], started: float
    ) -> int:
        """The rows of an ALB log written as a log, read and written as bytes (``enrichment.log_bytes``)."""
        assert isinstance(self.writer, Writer)
        number = 1
        for every in byte_lines(source, name):
            for at in range(0, len(every), self.batch_rows):
                lines = every[at : at + self.batch_rows]
                rows = log_bytes.read(self.reader, lines, number)
                batch = self.enricher.enrich(rows.addresses, None, fixed=self.as_of)
                self._check_layout(rows, summary)
                self._count(rows, batch, summary)
                out = self.writer.header().encode("utf-8", "surrogateescape")
                out += log_bytes.written(self.writer, batch, lines)
                summary.bytes_out += len(out)
                write(out)
                number += len(lines)
                summary.seconds = time.perf_counter() - started
                if self.progress is not None:
                    self.progress(summary)
        return number

    def _batch(
        self, lines: list[str], number: int, summary: Summary, write: Callable[[bytes], Any], *, more: bool = False
    ) -> int:
        rows = self.reader.read(lines, number, more=more)
        instants = self._instants(rows)
        batch = self.enricher.enrich(rows.addresses, instants, fixed=self.as_of)
        self._check_layout(rows, summary)
        self._count(rows, batch, summary)
        text = self.writer.rows(batch, rows).encode("utf-8", "surrogateescape")
        summary.bytes_out += len(text)
        write(text)
        if self.progress is not None:
            self.progress(summary)
        return number + len(lines)

    def _instants(self, rows: Rows) -> npt.NDArray[np.float64] | None:
        if rows.times is None:
            return None
        parse = self.reader.instant()
        known: dict[tuple[str, ...], float] = {}
        instants = np.full(len(rows.lines), math.nan)
        for index, texts in enumerate(rows.times):
            if not texts or index in rows.bad:
                continue
            key = tuple(texts)
            value = known.get(key)
            if value is None:
                try:
                    value = known[key] = checked_instant(parse(texts))
                except ValueError as error:
                    rows.bad[index] = f"the row's time cannot be read: {error}"
                    rows.addresses[index] = ""
                    continue
            instants[index] = value
        for index in np.flatnonzero(np.isnan(instants)).tolist():
            if index not in rows.bad and rows.addresses[index]:
                rows.bad[index] = "the row has no time"
                rows.addresses[index] = ""
        return instants

    def _check_layout(self, rows: Rows, summary: Summary) -> None:
        if summary.rows or not rows.numbers:
            return
        checked = min(len(rows.numbers), LAYOUT_CHECK_ROWS)
        if all(index in rows.bad for index in range(checked)):
            raise JobError(
                f"line {rows.numbers[0]}: {rows.bad[0]} (no row of the first {checked} is {self.reader.form})"
            )

    def _count(self, rows: Rows, batch: Batch, summary: Summary) -> None:
        summary.rows += len(rows.numbers)
        for index in sorted({*rows.bad, *batch.invalid}):
            reason = rows.bad.get(index) or _invalid(rows.addresses[index], batch.invalid[index])
            summary.add_bad(rows.numbers[index], reason)
        for (dataset, version), count in batch.versions.items():
            found = summary.versions.setdefault(dataset, {})
            found[version] = found.get(version, 0) + count
        for dataset, count in batch.refused.items():
            summary.no_version[dataset] = summary.no_version.get(dataset, 0) + count


def _invalid(text: str, reason: str) -> str:
    if not text:
        return "the row has no address"
    shown = text if len(text) <= 64 else text[:64] + "..."
    return f"{shown!r} is not a valid IP address: {reason}"
