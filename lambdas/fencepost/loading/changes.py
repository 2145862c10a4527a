"""Changes in the bucket: each touched dataset counts a request and schedules a build after a settle delay (only
the latest request builds, so a burst of changes makes one build). A dataset is touched by a change to one of its
data objects, to its ``_settings.json`` (settings are part of what a version is built from) or to an object of one
of its dated folders (``_history/<YYYY-MM-DD>/``, ``loading.backfilling``). Data keys that belong to no dataset, and
objects of a dated folder whose name is no date, are rejected with a note under ``_reports/_rejected/``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.storage.job_keys import job_file_owner
from fencepost.core.storage.objects import (
    REPORTS_PREFIX,
    FolderError,
    dataset_of,
    dated_of,
    release_owner,
    settings_owner,
)
from fencepost.loading.messages import BuildRequested, ObjectsChanged, PlanJob
from fencepost.loading.ports import Clock, Documents, Outbox, Telemetry
from fencepost.loading.reports import iso


class Requests(Protocol):
    def note_request(self, name: str, now: float) -> int: ...


@dataclass(kw_only=True, slots=True)
class Changes:
    datasets: Requests
    documents: Documents
    outbox: Outbox
    telemetry: Telemetry
    clock: Clock
    settle_seconds: float

    def on_changed(self, message: ObjectsChanged) -> None:
        touched: dict[str, None] = {}
        for key in message.keys:
            job = job_file_owner(key)
            if job is not None:  # an enrichment job's file: the job starts
                self.outbox.send(PlanJob(job))
                self.telemetry.logger.info("enrichment job file written; job planned", extra={"job": job})
                continue
            try:
                dated = dated_of(key)
                dataset = dated[0] if dated else dataset_of(key) or settings_owner(key) or release_owner(key)
            except FolderError as error:
                self._reject(key, str(error))
                continue
            if dataset is not None:
                touched[dataset] = None
        for dataset in touched:
            self.request_build(dataset, self.settle_seconds)

    def request_build(self, dataset: str, delay: float) -> int:
        """Count a change to ``dataset`` and schedule its build; returns the request number."""
        request = self.datasets.note_request(dataset, self.clock())
        self.outbox.send(BuildRequested(dataset, request), delay)
        self.telemetry.logger.info("folder changed; build scheduled", extra={"dataset": dataset, "request": request})
        return request

    def _reject(self, key: str, reason: str) -> None:
        self.telemetry.logger.warning("object ignored", extra={"object": key, "reason": reason})
        name = hashlib.sha256(key.encode()).hexdigest()[:16]
        note = {"object": key, "reason": reason, "at": iso(self.clock())}
        self.documents.put_json(f"{REPORTS_PREFIX}_rejected/{name}.json", note)
        self.telemetry.metrics.add_metric(name="ObjectsRejected", unit=MetricUnit.Count, value=1)
