"""Enrichment jobs in the bucket (``core.storage.job_keys``), run by the loader function on its data queue:

1. ``PlanJob`` (the job file was written): the job file read and checked, the datasets resolved, each input under
   ``in/`` cut into parts (``enrichment.parts``), the plan written, and one ``EnrichPart`` sent per part;
2. ``EnrichPart``: the part's lines enriched into ``_parts/<i>/<k>`` (gzip when the output is), then what it
   counted beside it; the part that finds every part counted sends ``JoinJob``;
3. ``JoinJob``: each input's parts joined in order into ``out/`` (a multipart upload, parts copied in S3 where they
   are large enough), the summary written, the parts deleted.

Each step can run again without harm: a part's objects have fixed names (a worker killed midway leaves none, or a
whole one that its next delivery writes again, byte for byte), a plan is made once, a finished job is left alone.
So the queue's delivery again after a failure is the retry, and no row is written twice or lost.

A job that cannot run (a job file that cannot be read, no inputs, an unknown dataset, an input that is not what it
says) fails with the reason in its summary; S3 or DynamoDB failing hands the message back to be delivered again.
"""

from __future__ import annotations

import io
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from fencepost.core.storage.job_keys import (
    PART_SUMMARY,
    inputs_prefix,
    job_file_key,
    output_key,
    part_key,
    parts_prefix,
    plan_key,
    summary_key,
)
from fencepost.enrichment.inputs import InputError, Reader
from fencepost.enrichment.job import JobError
from fencepost.enrichment.job_files import (
    CONTENT_TYPES,
    GZIP_TYPE,
    JobFiles,
    PlannedInput,
    Upload,
    job_summary,
    part_document,
)
from fencepost.enrichment.job_spec import JobSpec, assemble
from fencepost.enrichment.outputs import OutputError
from fencepost.enrichment.parts import (
    BLOCK,
    HEAD_BYTES,
    PartError,
    PartStream,
    gzip_parts,
    head_of,
    inflated,
    owned_lines,
)
from fencepost.enrichment.parts import plain_parts as cut_plain
from fencepost.enrichment.resolving import UNRESOLVED, VersionSource
from fencepost.errors import ServiceError
from fencepost.loading.delivery import Delivery
from fencepost.loading.dispatch import Step
from fencepost.loading.messages import EnrichPart, JoinJob, Message, PlanJob
from fencepost.loading.ports import Clock, Outbox, Telemetry
from fencepost.loading.reports import iso

GZIP_LEVEL: Final = 4
_REFUSED = (InputError, OutputError, JobError, PartError, ServiceError, *UNRESOLVED)


class JobFailed(Exception):
    """The job cannot go on; the message is the reason its summary gives."""


@dataclass(kw_only=True, slots=True)
class JobSteps:
    files: JobFiles
    sources: Callable[[], VersionSource]  # the service's datasets, read afresh for each step
    outbox: Outbox
    telemetry: Telemetry
    part_bytes: int
    max_parts: int
    clock: Clock = time.time
    monotonic: Clock = time.monotonic

    def steps(self) -> dict[type[Message], Step]:
        return {PlanJob: self.on_plan, EnrichPart: self.on_part, JoinJob: self.on_join}

    def on_plan(self, message: PlanJob, delivery: Delivery) -> None:
        job = message.job
        if self._finished(job):
            return
        plan = self.files.get_json(plan_key(job))
        if plan is None:
            try:
                spec = self._spec(job)
                if spec is None:
                    return  # the job file is gone
                plan = self._plan(job, spec, delivery)
            except JobFailed as failed:
                self._fail(job, str(failed))
                return
            self.files.put_json(plan_key(job), plan)
        done = {ref.key for ref in self.files.refs(parts_prefix(job))}
        messages = [
            EnrichPart(job, source, part)
            for source, planned in enumerate(plan["inputs"])
            for part in range(len(planned["parts"]))
            if part_key(job, source, part) + PART_SUMMARY not in done
        ]
        self.outbox.send_all(messages)
        self.telemetry.logger.info("enrichment job planned", extra={"job": job, "parts": plan["parts"]})

    def _spec(self, job: str) -> JobSpec | None:
        try:
            document = self.files.get_json(job_file_key(job))
            return None if document is None else JobSpec.parse(document)
        except ValueError as error:  # not JSON, too large, or settings that cannot be used
            raise JobFailed(f"{job_file_key(job)}: {error}") from None

    def _plan(self, job: str, spec: JobSpec, delivery: Delivery) -> dict[str, Any]:
        refs = [ref for ref in self.files.refs(inputs_prefix(job)) if not ref.key.endswith("/")]
        if not refs:
            raise JobFailed(f"no inputs under {inputs_prefix(job)}: upload them before the job file")
        source = self.sources()
        inputs = []
        for ref in refs:
            try:
                assemble(spec, ref.key, lambda _name: source)  # every dataset answers, the settings fit the input
                inputs.append(self._cut(job, spec, ref, delivery))
            except _REFUSED as error:
                raise JobFailed(f"{ref.key}: {_reason(error)}") from None
        parts = sum(len(planned.parts) for planned in inputs)
        if parts > self.max_parts:
            raise JobFailed(f"the inputs make {parts:,} parts, more than {self.max_parts:,} (ENRICH_MAX_PARTS)")
        documents = [planned.as_dict() for planned in inputs]
        return {"job": job, "spec": _spec_document(spec), "planned_at": iso(self.clock()), "parts": parts} | {
            "inputs": documents
        }

    def _cut(self, job: str, spec: JobSpec, ref: Any, delivery: Delivery) -> PlannedInput:
        read = self._read(ref.key, 0, ref.etag)
        first = read(2)
        compressed = first == b"\x1f\x8b"
        if ref.key.endswith(".gz") and not compressed:
            raise PartError(f"it is named .gz but is not gzip (it starts with {first!r})")
        read = self._read(ref.key, 0, ref.etag)
        if compressed:
            parts = gzip_parts(read, self.part_bytes, in_time=lambda: self.monotonic() < delivery.deadline)
        else:
            parts = cut_plain(ref.size, self.part_bytes)
        head = b""
        if len(parts) > 1:
            read = self._read(ref.key, 0, ref.etag)
            text = b"".join(_first(inflated(read, ref.size) if compressed else iter(lambda: read(HEAD_BYTES), b"")))
            head = head_of(text, _rows_from(spec, ref.key))
        gzip = compressed if spec.gzip is None else spec.gzip
        output = output_key(job, ref.key, spec.out_form_of(ref.key), gzip)
        return PlannedInput(ref.key, ref.etag, ref.size, compressed, tuple(parts), head, output)

    def on_part(self, message: EnrichPart, delivery: Delivery) -> None:
        job, index = message.job, message.source
        plan = self.files.get_json(plan_key(job))
        if plan is None or self._finished(job):
            return
        planned = PlannedInput.of(plan["inputs"][index])
        spec = JobSpec.parse(plan["spec"])
        key = part_key(job, index, message.part)
        gzip = planned.output.endswith(".gz")
        upload = self.files.upload(key, GZIP_TYPE if gzip else CONTENT_TYPES[spec.out_form_of(planned.key)])
        try:
            summary = self._enrich(spec, planned, message.part, upload=upload, gzip=gzip, delivery=delivery)
        except BaseException as error:
            upload.abort()
            if isinstance(error, (*_REFUSED, JobFailed)):
                self._fail(job, f"{planned.key}, part {message.part + 1}: {_reason(error)}")
                return
            raise
        head_lines = planned.head_lines if message.part else 0
        self.files.put_json(key + PART_SUMMARY, part_document(summary, head_lines))
        done = sum(1 for ref in self.files.refs(parts_prefix(job)) if ref.key.endswith(PART_SUMMARY))
        if done >= plan["parts"]:
            self.outbox.send(JoinJob(job))

    def _enrich(
        self, spec: JobSpec, planned: PlannedInput, part: int, *, upload: Upload, gzip: bool, delivery: Delivery
    ) -> Any:
        start, end = planned.parts[part]
        if planned.gzip:
            chunks = inflated(self._read(planned.key, start, planned.etag), end - start)
        else:
            chunks = owned_lines(self._read(planned.key, max(start - 1, 0), planned.etag), start, end)
        stream = PartStream(planned.head if part else b"", chunks)

        def in_time(_summary: Any) -> None:
            if self.monotonic() >= delivery.deadline:
                raise JobFailed("it was not enriched in the function's time: set ENRICH_PART_BYTES lower")

        source = self.sources()
        job = assemble(spec, planned.key, lambda _name: source, progress=in_time)
        if part:
            job.writer.without_header()
        compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31) if gzip else None
        write = upload.write if compressor is None else lambda text: upload.write(compressor.compress(text))
        summary = job.run(io.BufferedReader(stream, BLOCK), planned.key.removesuffix(".gz"), write)
        if compressor is not None:
            upload.write(compressor.flush())
        upload.close()
        summary.bytes_in = stream.text
        return summary

    def on_join(self, message: JoinJob, _delivery: Delivery) -> None:
        job = message.job
        plan = self.files.get_json(plan_key(job))
        if plan is None or self._finished(job):
            return
        refs = {ref.key: ref for ref in self.files.refs(parts_prefix(job))}
        inputs = [PlannedInput.of(document) for document in plan["inputs"]]
        keys = [[part_key(job, i, k) for k in range(len(planned.parts))] for i, planned in enumerate(inputs)]
        if any(key + PART_SUMMARY not in refs for row in keys for key in row):
            return  # a part is not done: the last part to finish sends this again
        for planned, row in zip(inputs, keys, strict=True):
            content = GZIP_TYPE if planned.output.endswith(".gz") else "application/octet-stream"
            self.files.join(planned.output, [refs[key] for key in row], content)
        parts = [[self.files.get_json(key + PART_SUMMARY) for key in row] for row in keys]
        summary = {"state": "done", "started_at": plan["planned_at"], "finished_at": iso(self.clock())}
        self.files.put_json(summary_key(job), summary | {"parts": plan["parts"]} | job_summary(inputs, parts))
        self.files.delete([key for row in keys for key in row] + [key + PART_SUMMARY for row in keys for key in row])
        self.telemetry.logger.info("enrichment job done", extra={"job": job, "parts": plan["parts"]})

    def _read(self, key: str, offset: int, etag: str) -> Callable[[int], bytes]:
        read = self.files.read_from(key, offset, etag)
        if read is None:
            raise JobFailed(f"{key} was changed or deleted while the job ran")
        return read

    def _finished(self, job: str) -> bool:
        summary = self.files.get_json(summary_key(job))
        return isinstance(summary, dict) and summary.get("state") in ("done", "failed")

    def _fail(self, job: str, reason: str) -> None:
        self.telemetry.logger.warning("enrichment job failed", extra={"job": job, "reason": reason})
        self.files.put_json(summary_key(job), {"state": "failed", "reason": reason, "finished_at": iso(self.clock())})


def _reason(error: BaseException) -> str:
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
        reader = Reader(spec.form_of(key), column=spec.column, time=spec.time, header=spec.header)
        rows = reader.read(lines, 1)
        return rows.numbers[0] - 1 if rows.numbers else len(lines)

    return first_row


def _spec_document(spec: JobSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in JobSpec.__slots__} | {"datasets": list(spec.datasets)}
