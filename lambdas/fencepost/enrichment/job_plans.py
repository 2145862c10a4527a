"""Planning an enrichment job in the bucket (``enrichment.job_steps``): its job file read and checked, the versions
that will answer it fixed, and each input cut into parts (``enrichment.parts``), with its head and its output's name.

A job answers from the same versions in every part: those live when it was planned (their numbers are in the plan),
or the one instant its ``as_of`` names (made absolute when planned); with each row's own time, the history's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from fencepost.core.storage.job_keys import inputs_prefix, job_file_key, output_key
from fencepost.core.versions.history import InstantError, format_instant, parse_instant
from fencepost.enrichment.csv_records import record_cuts
from fencepost.enrichment.input_lines import JobError
from fencepost.enrichment.inputs import InputError, Reader
from fencepost.enrichment.job_files import JobFiles, PlannedInput
from fencepost.enrichment.job_spec import JobSpec, assemble
from fencepost.enrichment.outputs import OutputError
from fencepost.enrichment.parts import HEAD_BYTES, PartError, gzip_parts, head_of, inflated
from fencepost.enrichment.parts import plain_parts as cut_plain
from fencepost.enrichment.resolving import UNRESOLVED, VersionSource
from fencepost.errors import ServiceError
from fencepost.loading.ports import Clock
from fencepost.loading.reports import iso

REFUSED = (InputError, OutputError, JobError, PartError, ServiceError, *UNRESOLVED)


class JobFailed(Exception):
    """The job cannot go on; the message is the reason its summary gives."""


@dataclass(kw_only=True, slots=True)
class JobPlanner:
    files: JobFiles
    part_bytes: int
    max_parts: int
    clock: Clock = time.time
    monotonic: Clock = time.monotonic

    def spec(self, job: str) -> JobSpec | None:
        try:
            document = self.files.get_json(job_file_key(job))
            return None if document is None else JobSpec.parse(document)
        except ValueError as error:  # not JSON, too large, or settings that cannot be used
            raise JobFailed(f"{job_file_key(job)}: {error}") from None

    def plan(self, job: str, spec: JobSpec, source: VersionSource, deadline: float) -> dict[str, Any]:
        refs = [ref for ref in self.files.refs(inputs_prefix(job)) if not ref.key.endswith("/")]
        if not refs:
            raise JobFailed(f"no inputs under {inputs_prefix(job)}: upload them before the job file")
        pins: dict[str, list[Any]] = {}
        try:
            if spec.as_of is not None:  # one instant for every part, however late it runs
                spec = replace(spec, as_of=format_instant(parse_instant(spec.as_of, self.clock())))
            elif spec.time is None:  # the versions live now answer every part, whatever goes live meanwhile
                pins = pinned_versions(source, spec.datasets)
        except (InstantError, *UNRESOLVED) as error:
            raise JobFailed(reason(error)) from None
        inputs = []
        for ref in refs:
            try:
                assemble(spec, ref.key, lambda _name: source)  # every dataset answers, the settings fit the input
                inputs.append(self._cut(job, spec, ref, deadline))
            except REFUSED as error:
                raise JobFailed(f"{ref.key}: {reason(error)}") from None
        written: dict[str, str] = {}
        for each in inputs:  # in/a (one address a line) and in/a.csv are both written as out/a.csv
            other = written.setdefault(each.output, each.key)
            if other != each.key:
                raise JobFailed(f"{other} and {each.key} would both be written to {each.output}: rename one")
        parts = sum(len(planned.parts) for planned in inputs)
        if parts > self.max_parts:
            raise JobFailed(f"the inputs make {parts:,} parts, more than {self.max_parts:,} (ENRICH_MAX_PARTS)")
        documents = [planned.as_dict() for planned in inputs]
        planned = {"job": job, "spec": _spec_document(spec), "planned_at": iso(self.clock()), "parts": parts}
        return planned | {"versions": pins, "inputs": documents}

    def _cut(self, job: str, spec: JobSpec, ref: Any, deadline: float) -> PlannedInput:
        read = self.read(ref.key, 0, ref.etag)
        first = read(2)
        compressed = first == b"\x1f\x8b"
        if ref.key.endswith(".gz") and not compressed:
            raise PartError(f"it is named .gz but is not gzip (it starts with {first!r})")
        read = self.read(ref.key, 0, ref.etag)
        if compressed:
            parts = gzip_parts(read, self.part_bytes, in_time=lambda: self.monotonic() < deadline)
        else:
            parts = cut_plain(ref.size, self.part_bytes)
            if len(parts) > 1 and spec.form_of(ref.key) in ("csv", "tsv"):  # no part starts inside a record
                in_time = lambda: self.monotonic() < deadline  # noqa: E731
                parts = record_cuts(self.read(ref.key, 0, ref.etag), parts, spec.record_lines, in_time=in_time)
        head = b""
        if len(parts) > 1:
            read = self.read(ref.key, 0, ref.etag)
            text = b"".join(_first(inflated(read, ref.size) if compressed else iter(lambda: read(HEAD_BYTES), b"")))
            head = head_of(text, _rows_from(spec, ref.key))
        gzip = compressed if spec.gzip is None else spec.gzip
        output = output_key(job, ref.key, spec.out_form_of(ref.key), gzip)
        return PlannedInput(ref.key, ref.etag, ref.size, compressed, tuple(parts), head, output)

    def read(self, key: str, offset: int, etag: str) -> Callable[[int], bytes]:
        read = self.files.read_from(key, offset, etag)
        if read is None:
            raise JobFailed(f"{key} was changed or deleted while the job ran")
        return read


def reason(error: BaseException) -> str:
    return error.message if isinstance(error, ServiceError) else str(error)


def _first(chunks: Any) -> list[bytes]:
    """The first ``HEAD_BYTES`` of a stream of chunks."""
    taken: list[bytes] = []
    size = 0
    for chunk in chunks:
        taken.append(chunk)
        size += len(chunk)
        if size >= HEAD_BYTES:
            break
    return taken


def _rows_from(spec: JobSpec, key: str) -> Callable[[list[str]], int]:
    def first_row(lines: list[str]) -> int:
        form = spec.form_of(key)
        reader = Reader(form, column=spec.column, time=spec.time, header=spec.header, record_lines=spec.record_lines)
        rows = reader.read(lines, 1)
        return rows.numbers[0] - 1 if rows.numbers else len(lines)

    return first_row


def _spec_document(spec: JobSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in JobSpec.__slots__} | {"datasets": list(spec.datasets)}


def pinned_versions(source: VersionSource, datasets: Sequence[str]) -> dict[str, list[Any]]:
    """What a plan pins, by dataset: the live version of each of ``datasets`` and of each keyed dataset their versions
    join, ``[version, live since]``; ``[None, None]`` for a keyed dataset with no live version then, so that no part
    joins one loaded while the job runs (its joined columns null in every part, as lookups gave when planned)."""
    pointers = [source.live(dataset) for dataset in datasets]
    pins: dict[str, list[Any]] = {pointer.dataset: [pointer.version, pointer.live_since] for pointer in pointers}
    names = dict.fromkeys(join.dataset for pointer in pointers for join in source.info(pointer).keyed_joins)
    for name in names:
        try:
            pointer = source.live(name)
        except UNRESOLVED:
            pins[name] = [None, None]
            continue
        pins[name] = [pointer.version, pointer.live_since]
    return pins
