"""Planning a build: take a build number for the latest change, decide what the folder asks for (a dated folder's
past version first, then retire, nothing new, fail, or a new version), and read it; ``publishing`` takes it from
there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from fencepost.core.folders.fingerprint import fingerprint
from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.formats.base import FileError
from fencepost.core.pauses import gc_paused
from fencepost.core.storage.objects import FolderError, is_fetched
from fencepost.core.versions.history import keep_until
from fencepost.errors import DependencyUnavailable, NotLatestRequest, SupersededLoad
from fencepost.loading.accepting import acceptance
from fencepost.loading.backfilling import Backfill
from fencepost.loading.delivery import Delivery
from fencepost.loading.failing import Failures, LoadRecords, Scheduler
from fencepost.loading.keyed_building import KeyedBuilder
from fencepost.loading.messages import BuildRequested
from fencepost.loading.ports import BuildStates, Clock, Folder, SinkRequests, TableRequests, Telemetry
from fencepost.loading.publishing import Publisher
from fencepost.loading.reading import LoadFailure, Read, Reader
from fencepost.loading.recipe import read_folder
from fencepost.model import BuildState, DatasetRecord, LoadStatus, ObjectRef, Problem


class BuildNumbers(LoadRecords, Protocol):
    def start_build(self, name: str, request: int, now: float) -> DatasetRecord: ...
    def release_request(self, name: str, request: int) -> bool: ...
    def retire(self, name: str, build: int, now: float) -> DatasetRecord: ...
    def keep_live(self, name: str, build: int, now: float) -> bool: ...
    def set_retention(self, name: str, days: int) -> None: ...
    def set_max_age(self, name: str, seconds: int) -> None: ...
    def release_hold(self, name: str, build: int, held: str) -> bool: ...


@dataclass(kw_only=True, slots=True)
class Builder:
    datasets: BuildNumbers
    builds: BuildStates
    folder: Folder
    reader: Reader
    publisher: Publisher
    backfill: Backfill
    failures: Failures
    deletions: Scheduler
    telemetry: Telemetry
    clock: Clock
    keyed: KeyedBuilder  # a keyed folder's build (``loading.keyed_building``)
    max_receives: int
    delete_grace: float
    sinks: SinkRequests | None = None  # a folder that changed its settings only: its sinks are pushed again
    tables: TableRequests | None = None  # a retired dataset: its Glue tables dropped

    def on_build(self, message: BuildRequested, delivery: Delivery) -> None:
        dataset, request = message.dataset, message.request
        try:
            record = self.datasets.start_build(dataset, request, self.clock())
        except NotLatestRequest:
            retaken = self._retake(dataset, request, delivery)
            if retaken is None:
                log = self.telemetry.logger
                log.info("build skipped: a newer change or a repeated delivery", extra={"dataset": dataset})
                return
            record = retaken
        build = record.builds
        try:
            with gc_paused():
                self._plan(dataset, build, record, delivery)
        except LoadFailure as failure:
            self.failures.fail_load(dataset, build, failure.problems)
        except DependencyUnavailable as error:
            self.failures.abandon(dataset, build)  # whatever this attempt wrote is deleted; a retry takes a new number
            if delivery.receive_count >= self.max_receives:
                reason = f"{error} (after {delivery.receive_count} attempts)"
                self.failures.fail_load(dataset, build, [Problem("", None, reason)])
                return
            self.datasets.release_request(dataset, request)
            raise
        except Exception as error:  # a bug, or a request DynamoDB refuses: retrying would meet it again
            self.failures.fail_unexpected(dataset, build, error)

    def _retake(self, dataset: str, request: int, delivery: Delivery) -> DatasetRecord | None:
        """Plan ``request`` again when its message comes back after its attempt died in planning.

        A timeout or running out of memory ends an invocation without a word: its build message returns after
        the visibility timeout, but the request is already planned. If that request is still the latest and its
        build never got past planning, the dead attempt is abandoned (what it wrote is deleted) and the request
        takes a new build number. A build that got further finishes by itself (its chunks, or the sweep).
        """
        if delivery.receive_count < 2:
            return None  # a first delivery of a planned request is a duplicate of a message that was handled
        dead = self._died_in_planning(dataset, request)
        if dead is None:
            return None
        self.failures.abandon(dataset, dead)
        if not self.datasets.release_request(dataset, request):
            return None
        try:
            retaken = self.datasets.start_build(dataset, request, self.clock())
        except NotLatestRequest:
            return None  # another delivery took it again first
        log = self.telemetry.logger
        log.warning("build planned again: its first attempt died", extra={"dataset": dataset, "build": dead})
        return retaken

    def _died_in_planning(self, dataset: str, request: int) -> int | None:
        """The build of ``request`` if it is the latest attempt and never got past planning."""
        record = self.datasets.get(dataset, consistent=True)
        if record is None or not record.requests == record.planned == request or record.status == LoadStatus.READY:
            return None
        attempt = self.builds.get(dataset, record.builds)
        if attempt is not None and attempt.state not in (BuildState.PLANNING, BuildState.ABANDONED):
            return None
        return record.builds

    def _plan(self, dataset: str, build: int, record: DatasetRecord, delivery: Delivery) -> None:
        started = self.clock()
        try:
            settings = self.folder.settings(dataset)
        except (FolderError, FileError) as error:
            raise LoadFailure(str(error)) from None
        if settings.retain_days != record.retain_days:
            self.datasets.set_retention(dataset, settings.retain_days)
        if settings.max_age != record.max_age:
            self.datasets.set_max_age(dataset, settings.max_age)

        def build_dated(date: str, objects: list[ObjectRef], folder: FolderSettings) -> bool:
            read = self._read(dataset, build, objects, folder, deadline=delivery.deadline, started=started)
            publish = self.publisher.publish
            return read is not None and publish(
                dataset, build, objects, read, started=started, deadline=delivery.deadline, folder=folder, dated=date
            )

        objects = self.folder.list_data(dataset)
        # No build of half a release (the manifest's last write builds it); a folder no source writes costs no read
        if any(is_fetched(o.key) for o in objects) and self.folder.release_unfinished(dataset):
            self.telemetry.logger.info("build skipped: the source is writing a release", extra={"dataset": dataset})
            self.failures.abandon(dataset, build)
            return
        sources = fingerprint(((o.key, o.etag) for o in objects), settings_digest(settings))
        # Changed live files go first (a long backfill never holds up a reload); the dated folders resume after
        live_changed = bool(objects) and (
            record.live is None or record.retired or sources not in (record.sources, record.held)
        )
        live_since = record.live_since if record.live is not None and not record.retired else None
        keyed = settings.key is not None  # a table of keys (``loading.keyed_building``): no dated folders
        if not live_changed and not keyed and self.backfill.step(dataset, build, settings, build_dated, live_since):
            return
        if not objects:
            self._retire(dataset, build, record)
            return
        if self._unchanged(dataset, build, record, sources):
            return
        if keyed:
            at = delivery.deadline
            self.keyed.build(
                dataset, build, objects, settings, record=record, sources=sources, started=started, deadline=at
            )
            return
        read = self._read(dataset, build, objects, settings, deadline=delivery.deadline, started=started)
        if read is None:
            return
        self.publisher.publish(
            dataset,
            build,
            objects,
            read,
            started=started,
            deadline=delivery.deadline,
            folder=settings,
            baseline=None if record.retired else record.live,
            accepted=record.accepted == acceptance(record.planned, sources),
        )

    def _unchanged(self, dataset: str, build: int, record: DatasetRecord, sources: str) -> bool:
        """True when the folder holds the live version's sources, or those a rollback moved away from: nothing to
        build. A folder that changed since a rollback moved away from its sources ends the rollback's hold."""
        released = (
            record.held is None or sources == record.held or self.datasets.release_hold(dataset, build, record.held)
        )
        log = self.telemetry.logger
        if not released:
            log.info("rollback hold kept: a newer load or rollback took over", extra={"dataset": dataset})
        if record.live is None or record.retired or sources not in (record.sources, record.held):
            return False
        if self.datasets.keep_live(dataset, build, self.clock()):
            log.info("build skipped: the folder holds the sources of the live version", extra={"dataset": dataset})
            if self.sinks is not None and record.live is not None:
                self.sinks(dataset, record.live)
        else:
            log.info("build skipped: a newer load took over", extra={"dataset": dataset, "build": build})
        return True

    def _read(
        self,
        dataset: str,
        build: int,
        objects: list[ObjectRef],
        settings: FolderSettings,
        *,
        deadline: float,
        started: float,
    ) -> Read | None:
        """The folder's rows, read and checked with its settings (``loading.recipe``); None when the load failed
        (and was reported: the report names the objects this build read)."""
        try:
            return read_folder(self.reader, dataset, build, objects, settings, deadline=deadline)
        except LoadFailure as failure:
            fail = self.failures.fail_load
            fail(dataset, build, failure.problems, failure.total, rows=failure.rows, objects=objects, started=started)
            return None

    def _retire(self, dataset: str, build: int, record: DatasetRecord) -> None:
        try:
            before = self.datasets.retire(dataset, build, self.clock())
        except SupersededLoad:
            return
        not_before = keep_until(self.clock(), before.retain_days, self.delete_grace)
        for version in (before.live, before.previous):
            if version is not None:
                self.deletions.schedule(dataset, version, not_before)
        if self.tables is not None:
            self.tables(dataset, build)
        self.telemetry.logger.info(
            "dataset retired: its folder is empty", extra={"dataset": dataset, "live": record.live}
        )
