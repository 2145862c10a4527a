"""What a job is asked to do, and the job assembled from it: the same for ``python -m enrich`` (its options) and for a
job in the bucket (its job file, ``core.storage.job_keys``).

A job file is a JSON object; only ``datasets`` is required::

    {"datasets": ["geo", "asn"], "format": "alb", "fields": "data,range", "mode": "all",
     "time": "log", "out_format": "csv", "gzip": true}

``as_of`` (an RFC 3339 instant) answers every row as of then; ``time`` each row as of its own (``log``, or a column
or field); ``column`` names the address; ``header: false`` reads a CSV or TSV with no header line; ``raw_cells``
leaves cells a spreadsheet would run as formulas as they are; ``gzip`` compresses the output (default: as the input);
``record_lines`` is how many lines a CSV or TSV record may span (``enrichment.csv_records``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import PurePosixPath
from typing import Any, Final

from fencepost.core.versions.history import InstantError, parse_instant
from fencepost.enrichment.csv_records import MOST_RECORD_LINES, RECORD_LINES
from fencepost.enrichment.engine import Enricher
from fencepost.enrichment.inputs import FORMATS, InputError, Reader
from fencepost.enrichment.job import Job, Summary
from fencepost.enrichment.outputs import FORMS, OutputError, Writer
from fencepost.enrichment.parquet_output import FORM as PARQUET
from fencepost.enrichment.parquet_output import ParquetOutput
from fencepost.enrichment.resolving import UNRESOLVED, Resolver, VersionSource
from fencepost.enrichment.shape import Shape, answer_columns, parse_fields
from fencepost.model import LivePointer
from fencepost.reading.answers import Mode

SUFFIXES: Final = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
MAX_DATASETS: Final = 16
OUT_FORMS: Final = (*FORMS, PARQUET)


@dataclass(frozen=True, slots=True)
class JobSpec:
    datasets: tuple[str, ...]
    format: str | None = None  # None: by the input's name, else lines
    column: str | None = None
    time: str | None = None
    header: bool = True
    fields: str | None = None
    mode: str = Mode.ALL.value
    as_of: str | None = None
    out_format: str | None = None  # None: as the input (a log: csv)
    raw_cells: bool = False
    gzip: bool | None = None  # None: as the input
    record_lines: int = RECORD_LINES  # the lines a CSV or TSV record may span (its quoted fields' line breaks)

    def form_of(self, name: str) -> str:
        return self.format or SUFFIXES.get(PurePosixPath(name.removesuffix(".gz")).suffix, "lines")

    def out_form_of(self, name: str) -> str:
        form = self.form_of(name)
        return self.out_format or (form if form in FORMS else "csv")

    @classmethod
    def parse(cls, document: Any) -> JobSpec:
        """A job file's object; ``InputError`` saying what is wrong with it."""
        if not isinstance(document, dict):
            raise InputError("a job file is a JSON object")
        known = {spec.name: spec for spec in fields(cls)}
        unknown = sorted(set(document) - set(known))
        if unknown:
            raise InputError(f"a job file has no setting {unknown[0][:40]!r} (it has {', '.join(known)})")
        datasets = document.get("datasets")
        if isinstance(datasets, str):
            datasets = [datasets]
        if not isinstance(datasets, list) or not datasets or not all(isinstance(name, str) for name in datasets):
            raise InputError('a job file names its datasets: "datasets": ["geo"]')
        if len(datasets) > MAX_DATASETS:
            raise InputError(f"a job answers from at most {MAX_DATASETS} datasets")
        values: dict[str, Any] = {"datasets": tuple(datasets)}
        for name, value in document.items():
            if name != "datasets" and value is not None:
                values[name] = _checked(name, value)
        spec = cls(**values)
        spec.check()
        if spec.out_format == PARQUET:
            raise InputError("jobs in the bucket write csv, tsv or jsonl: parquet is written by python -m enrich")
        return spec

    def check(self) -> None:
        if self.format is not None and self.format not in FORMATS:
            raise InputError(f"unknown input format {self.format!r}: the formats are {', '.join(FORMATS)}")
        if self.out_format is not None and self.out_format not in OUT_FORMS:
            raise InputError(f"unknown output format {self.out_format!r}: the formats are {', '.join(OUT_FORMS)}")
        if self.mode not in {mode.value for mode in Mode}:
            raise InputError(f"unknown mode {self.mode!r}: all or first")
        if self.as_of is not None and self.time is not None:
            raise InputError("give as_of (one instant for every row) or time (each row's own), not both")
        if not 1 <= self.record_lines <= MOST_RECORD_LINES:
            raise InputError(f"record_lines is from 1 to {MOST_RECORD_LINES:,}, not {self.record_lines}")


_TYPES: Final[Mapping[str, type]] = {"header": bool, "raw_cells": bool, "gzip": bool, "record_lines": int}
_WHAT: Final[Mapping[type, str]] = {bool: "true or false", int: "whole number", str: "string"}


def _checked(name: str, value: Any) -> Any:
    expected = _TYPES.get(name, str)
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise InputError(f"{name} in a job file is a {_WHAT[expected]}")
    if isinstance(value, str) and len(value) > 1000:
        raise InputError(f"{name} in a job file is too long")
    return value


def assemble(
    spec: JobSpec,
    name: str,
    source_of: Callable[[str], VersionSource],
    *,
    progress: Callable[[Summary], None] | None = None,
    now: float | None = None,
    parquet: str | None = None,
) -> Job:
    """The job that enriches the input called ``name`` as ``spec`` asks (a Parquet output written to the path
    ``parquet``): raises ``InputError`` / ``OutputError`` for
    settings it cannot use, and the service's errors (``UNRESOLVED``) for a dataset with no version to answer from."""
    spec.check()
    form = spec.form_of(name)
    reader = Reader(form, column=spec.column, time=spec.time, header=spec.header, record_lines=spec.record_lines)
    resolvers = [Resolver(dataset, source_of(dataset)) for dataset in spec.datasets]
    as_of = None
    if spec.as_of is not None:
        try:
            as_of = parse_instant(spec.as_of, time.time() if now is None else now)
        except InstantError as error:
            raise InputError(str(error)) from None
    per_row = spec.time is not None
    columns_of = {resolver.dataset: _columns(resolver, as_of, per_row=per_row) for resolver in resolvers}
    shape = Shape(spec.datasets, Mode(spec.mode), parse_fields(spec.fields), columns_of)
    out_form = spec.out_form_of(name)
    writer: Writer | ParquetOutput
    if out_form == PARQUET:
        if parquet is None:
            raise OutputError("parquet is written to a file: name it with --out")
        writer = ParquetOutput(parquet, reader, shape.columns())
    else:
        writer = Writer(out_form, reader, shape.columns(), raw=spec.raw_cells)
    errors_shown = out_form == "jsonl" or "error" in shape.selection.paths
    return Job(reader, writer, Enricher(shape, resolvers, errors_shown=errors_shown), as_of, progress=progress)


def _columns(resolver: Resolver, as_of: float | None, *, per_row: bool) -> tuple[str, ...]:
    """The columns the answers will carry: those of the version that answers now (or at ``as_of``); with each row
    answered as of its own time, those of every version the history still keeps, in the order first met. Each
    version's columns are those of its found answers' ``data``: the keyed joins' after its own."""
    if not per_row:
        return answer_columns(resolver.slots[resolver.fixed(as_of)].info)
    found: dict[str, None] = {}
    for event in resolver.source.timeline(resolver.dataset).events:
        if event.version is None or event.gone:
            continue
        try:
            info = resolver.source.info(LivePointer(resolver.dataset, event.version, event.at))
        except UNRESOLVED:
            continue
        found.update(dict.fromkeys(answer_columns(info)))
    return tuple(found)


def cli_spec(args: Any, datasets: Sequence[str]) -> JobSpec:
    """The spec of ``python -m enrich``'s options."""
    return JobSpec(
        datasets=tuple(datasets),
        format=args.format,
        column=args.column,
        time=args.time,
        header=not args.no_header,
        fields=args.fields,
        mode=args.mode,
        as_of=args.as_of,
        out_format=args.out_format,
        raw_cells=args.raw_cells,
        record_lines=args.record_lines,
    )
