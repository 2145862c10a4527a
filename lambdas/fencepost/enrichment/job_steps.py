"""Enrichment jobs in the bucket (``core.storage.job_keys``), run by the loader function on its data queue:

1. ``PlanJob`` (the job file was written): planned by ``enrichment.job_plans``: the job file read and checked, the
   versions that answer it fixed, each input under ``in/`` cut into parts (``enrichment.parts``), the plan written,
   and an ``EnrichPart`` sent for each of the first ``in_flight`` parts;
2. ``EnrichPart``: the part's lines enriched into ``_parts/<i>/<k>`` (gzip when the output is), then what it
   counted beside it, then the part ``in_flight`` places further sent: a job has at most that many parts on the
   data queue, which it shares with loads' chunks. A part is counted before the part it sends starts, so the last
   part counted is one of the last ``in_flight``: those alone list the parts, and the one that finds every part
   counted sends ``JoinJob``;
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
    part_key,
    parts_prefix,
    plan_key,
    summary_key,
)
from fencepost.enrichment.job_files import (
    JobFiles,
    PlannedInput,
    Upload,
    content_type,
    job_summary,
    part_document,
)
from fencepost.enrichment.job_plans import REFUSED, JobFailed, JobPlanner, reason
from fencepost.enrichment.job_spec import JobSpec, assemble
from fencepost.enrichment.parts import (
    BLOCK,
    PartStream,
    inflated,
    owned_lines,
)
from fencepost.enrichment.resolving import VersionSource
from fencepost.enrichment.sources import PinnedSource
from fencepost.loading.delivery import Delivery
from fencepost.loading.dispatch import Step
from fencepost.loading.messages import EnrichPart, JoinJob, Message, PlanJob
from fencepost.loading.ports import Clock, Outbox, Telemetry
from fencepost.loading.reports import iso

GZIP_LEVEL: Final = 4


@dataclass(kw_only=True, slots=True)
class JobSteps:
    files: JobFiles
    sources: Callable[[], VersionSource]  # the service's datasets, read afresh for each step
    outbox: Outbox
    telemetry: Telemetry
    planner: JobPlanner
    in_flight: int = 8  # parts on the queue at once (ENRICH_PARTS_IN_FLIGHT)
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
                spec = self.planner.spec(job)
                if spec is None:
                    return  # the job file is gone
                plan = self.planner.plan(job, spec, self.sources(), delivery.deadline) | {"in_flight": self.in_flight}
            except JobFailed as failed:
                self._fail(job, str(failed))
                return
            self.files.put_json(plan_key(job), plan)
        done = {ref.key for ref in self.files.refs(parts_prefix(job))}
        parts = _parts(job, plan)
        waiting = [
            at for at, part in enumerate(parts) if part_key(job, part.source, part.part) + PART_SUMMARY not in done
        ]
        # Part h is sent once part h - in_flight is counted (``on_part``); every part before the first waiting one is
        # counted, so a part sent again here keeps that rule
        self.outbox.send_all([parts[at] for at in waiting if at < waiting[0] + _in_flight(plan)] if waiting else [])
        self.telemetry.logger.info("enrichment job planned", extra={"job": job, "parts": plan["parts"]})

    def on_part(self, message: EnrichPart, delivery: Delivery) -> None:
        job, index = message.job, message.source
        plan = self.files.get_json(plan_key(job))
        if plan is None or self._finished(job):
            return
        counted = self.files.get_json(part_key(job, index, message.part) + PART_SUMMARY) is not None
        if not counted and not self._enrich_part(message, plan, delivery):
            return  # the job failed
        parts, in_flight = _parts(job, plan), _in_flight(plan)  # a part delivered again once done sends its next only
        at = parts.index(message)
        if at + in_flight < len(parts):
            self.outbox.send(parts[at + in_flight])
            return  # a part counted before the one it sends: the last part counted is among the last in_flight
        done = sum(1 for ref in self.files.refs(parts_prefix(job)) if ref.key.endswith(PART_SUMMARY))
        if done >= plan["parts"]:
            self.outbox.send(JoinJob(job))

    def _enrich_part(self, message: EnrichPart, plan: dict[str, Any], delivery: Delivery) -> bool:
        """Whether the part was enriched and counted (else the job failed)."""
        job, index = message.job, message.source
        planned = PlannedInput.of(plan["inputs"][index])
        spec = JobSpec.parse(plan["spec"])
        key = part_key(job, index, message.part)
        gzip = planned.output.endswith(".gz")
        upload = self.files.upload(key, content_type(spec.out_form_of(planned.key), gzip))
        try:
            pins = plan.get("versions", {})
            summary = self._enrich(spec, planned, message.part, pins, upload=upload, gzip=gzip, delivery=delivery)
        except BaseException as error:
            upload.abort()
            if isinstance(error, (*REFUSED, JobFailed)):
                self._fail(job, f"{planned.key}, part {message.part + 1}: {reason(error)}")
                return False
            raise
        head_lines = planned.head_lines if message.part else 0
        self.files.put_json(key + PART_SUMMARY, part_document(summary, head_lines))
        return True

    def _enrich(
        self,
        spec: JobSpec,
        planned: PlannedInput,
        part: int,
        pins: dict[str, list[Any]],
        *,
        upload: Upload,
        gzip: bool,
        delivery: Delivery,
    ) -> Any:
        start, end = planned.parts[part]
        if planned.gzip:
            chunks = inflated(self.planner.read(planned.key, start, planned.etag), end - start)
        else:
            chunks = owned_lines(self.planner.read(planned.key, max(start - 1, 0), planned.etag), start, end)
        stream = PartStream(planned.head if part else b"", chunks)

        def in_time(_summary: Any) -> None:
            if self.monotonic() >= delivery.deadline:
                raise JobFailed("it was not enriched in the function's time: set ENRICH_PART_BYTES lower")

        source = PinnedSource(self.sources(), {name: (pin[0], pin[1]) for name, pin in pins.items()})
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
        spec = JobSpec.parse(plan["spec"])
        for planned, row in zip(inputs, keys, strict=True):
            content = content_type(spec.out_form_of(planned.key), planned.output.endswith(".gz"))
            self.files.join(planned.output, [refs[key] for key in row], content)
        parts = [[self.files.get_json(key + PART_SUMMARY) for key in row] for row in keys]
        summary = {"state": "done", "started_at": plan["planned_at"], "finished_at": iso(self.clock())}
        self.files.put_json(summary_key(job), summary | {"parts": plan["parts"]} | job_summary(inputs, parts))
        self.files.delete([key for row in keys for key in row] + [key + PART_SUMMARY for row in keys for key in row])
        self.telemetry.logger.info("enrichment job done", extra={"job": job, "parts": plan["parts"]})

    def _finished(self, job: str) -> bool:
        summary = self.files.get_json(summary_key(job))
        return isinstance(summary, dict) and summary.get("state") in ("done", "failed")

    def _fail(self, job: str, reason: str) -> None:
        self.telemetry.logger.warning("enrichment job failed", extra={"job": job, "reason": reason})
        self.files.put_json(summary_key(job), {"state": "failed", "reason": reason, "finished_at": iso(self.clock())})


def _parts(job: str, plan: dict[str, Any]) -> list[EnrichPart]:
    """The plan's parts, in the order they are sent."""
    return [
        EnrichPart(job, source, part)
        for source, planned in enumerate(plan["inputs"])
        for part in range(len(planned["parts"]))
    ]


def _in_flight(plan: dict[str, Any]) -> int:
    """The job's parts on the queue at once, as fixed when it was planned (a plan made before the window existed
    sent every part at once: none is left to send, and each part looks for the join as it then did)."""
    return max(1, int(plan.get("in_flight", plan["parts"])))
