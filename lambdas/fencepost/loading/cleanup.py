"""Clean-up: deleting versions no one serves any more, and the sweep that fails stalled loads.

A version stops being served when a newer one goes live (the one before it stays as the rollback target) or
when its dataset retires; it is deleted once no warm lookup can still read it (``delete_grace`` after that).
A build that was abandoned (it failed, or was superseded) never went live: it is deleted once no invocation that
began writing it before it was abandoned can still write (``writer_timeout``, the loader function's timeout), so
no late chunk writer leaves items behind; its build record, which the sweep would use, goes last. A deletion is a
message on the data queue that walks the version's partitions, remembering where it got to, and waits in hops of
at most 15 minutes (SQS's longest delay). The files a build kept beside its report (its pieces, its changes, a keyed
version's table) go with its items.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.space.addresses import FAMILIES
from fencepost.core.storage.items import Item
from fencepost.core.storage.keys import range_pk
from fencepost.core.storage.objects import changes_key, index_keys, keys_key, pieces_key, table_key
from fencepost.core.versions import exports
from fencepost.core.versions.history import DAY, Timeline, keep_until
from fencepost.loading.delivery import Delivery
from fencepost.loading.failing import Failures
from fencepost.loading.going_live import GoLive
from fencepost.loading.messages import DeleteVersion
from fencepost.loading.ports import BuildStates, Clock, KeptFiles, Outbox, TableRequests, Telemetry, Writer
from fencepost.model import UNFINISHED, BuildRecord, BuildState, DatasetRecord, LoadStatus, Problem, VersionInfo

# The longest wait for a deletion made of delayed messages (SQS delays each by at most 15 minutes: 24 hops)
MAX_HOPPED_WAIT = 6 * 3600.0


class ServedVersions(Protocol):
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def timeline(self, name: str, *, consistent: bool = False) -> Timeline: ...
    def mark_gone(self, name: str, version: int, now: float) -> None: ...


class VersionItems(Protocol):
    def get(self, dataset: str, version: int) -> VersionInfo | None: ...
    def keys(self, dataset: str, version: int) -> list[Item]: ...
    def partition_keys(self, pk: str) -> Iterator[list[Item]]: ...


class BuildRecords(BuildStates, Protocol):
    def delete(self, dataset: str, build: int) -> None: ...
    def all(self, dataset: str) -> list[BuildRecord]: ...
    def mark_deleting(self, dataset: str, build: int, not_before: float) -> bool: ...


@dataclass(kw_only=True, slots=True)
class Deletions:
    datasets: ServedVersions
    versions: VersionItems
    builds: BuildRecords
    writer: Writer
    files: KeptFiles
    outbox: Outbox
    telemetry: Telemetry
    clock: Clock
    monotonic: Clock
    writer_timeout: float = 900.0  # the loader function's timeout: no invocation writes longer than this
    gone_wait: float = 960.0  # from marking a version gone to deleting its items: the lookups' grace (delete_grace)
    tables: TableRequests | None = None  # the tables function: its versions' table forgets a deleted version

    def schedule(self, dataset: str, version: int, not_before: float) -> None:
        """Delete ``version`` no sooner than ``not_before``, and an abandoned build no sooner than its writers'
        deadline. A build still being written or finalized is not deleted (logged: the caller abandons first)."""
        build = self.builds.get(dataset, version)
        if build is not None and build.state == BuildState.ABANDONED:
            not_before = max(not_before, self.clock() + self.writer_timeout)
        elif build is not None and build.state in UNFINISHED and build.switched is None:
            extra = {"dataset": dataset, "build": version, "state": str(build.state)}
            self.telemetry.logger.warning("deletion refused: the build may still be written", extra=extra)
            return
        if build is not None:
            self.builds.mark_deleting(dataset, version, not_before)  # refused only if it may not be deleted, or gone
        wait = not_before - self.clock()
        if build is None or wait <= MAX_HOPPED_WAIT:
            self.outbox.send(DeleteVersion(dataset, version, not_before), wait)
        # A longer wait (a version kept for its ``retain_days``) is no chain of messages: the sweep sends the
        # deletion once ``delete_after`` has passed (``Sweeper._deletion_due``).

    def on_delete(self, message: DeleteVersion, delivery: Delivery) -> None:
        dataset, version = message.dataset, message.version
        wait = message.not_before - self.clock()
        if wait > 0:
            self.outbox.send(message, wait)  # SQS delays at most 15 minutes: wait in several hops
            return
        record = self.datasets.get(dataset, consistent=True)
        if record is not None and version in (record.live, record.previous):
            log = self.telemetry.logger
            log.info("version not deleted: it is served again", extra={"dataset": dataset, "version": version})
            return
        if message.cursor == 0 and record is not None and self._kept_or_marked(record, message):
            return
        info = self.versions.get(dataset, version)
        partitions = [(f, p) for f in FAMILIES for p in info.directories[f].partitions] if info else []
        for index in range(message.cursor, len(partitions)):
            family, partition = partitions[index]
            for keys in self.versions.partition_keys(range_pk(dataset, version, family, partition)):
                if not self._delete(keys, delivery):
                    self._resume(message, index)
                    return
        if not self._delete(self.versions.keys(dataset, version), delivery):
            self._resume(message, len(partitions))
            return
        # Its pieces are no build's baseline any more; its changes stay while it is the latest load (they are served)
        latest = record is not None and record.load.version == version
        kept = [
            pieces_key(dataset, version),
            table_key(dataset, version),
            keys_key(dataset, version),  # a keyed version's table (``loading.keyed_building``)
            *index_keys(dataset, version, len(info.indexed) if info else 0),
        ]
        kept += exports.kept_keys(dataset, version)
        self.files.delete_files([*kept, *([] if latest else [changes_key(dataset, version)])])
        self.builds.delete(dataset, version)
        if self.tables is not None:  # its Parquet file is gone: <name>_versions projects it no more
            self.tables(dataset, version)
        self.telemetry.logger.info("old version deleted", extra={"dataset": dataset, "version": version})

    def _kept_or_marked(self, record: DatasetRecord, message: DeleteVersion) -> bool:
        """Before a once-live version's items go: whether its ``retain_days`` still keep it (its deletion is then
        put off until they pass); if not, its events are marked gone first, and its items deleted only once no
        container can still hold a history that named it kept (``gone_wait`` after the marking, whichever
        delivery comes first, a redelivery or the sweep's). True: not now."""
        timeline = self.datasets.timeline(record.name, consistent=True)
        version = message.version
        if not timeline.of(version):
            return False  # never live (an abandoned build), or live before the history was kept
        marked = timeline.gone_at(version)  # (marked already: its retention no longer keeps it)
        if marked is None and self._retained(record, version, timeline):
            return True
        now = self.clock()
        if marked is None:
            self.datasets.mark_gone(record.name, version, now)  # lookups in the past stop choosing it
            marked = now
        if marked + self.gone_wait <= now:
            return False
        self.schedule(record.name, version, marked + self.gone_wait)
        return True

    def _retained(self, record: DatasetRecord, version: int, timeline: Timeline) -> bool:
        """Whether the folder's ``retain_days`` still keeps the version (its deletion then put off until they pass):
        it was live within them. Read at deletion time, so a version is never deleted inside its window."""
        periods = timeline.periods().get(version)
        if not periods:
            return False  # never served (replaced in the instant it went live)
        stopped = periods[-1].end
        if stopped is None:  # its history serves it still: a dated version with no live version after it yet
            self.schedule(record.name, version, self.clock() + DAY)  # (the sweep asks again once a day)
            return True
        if record.retain_days <= 0:
            return False
        due = keep_until(stopped, record.retain_days, 0.0)
        if due <= self.clock():
            return False
        self.telemetry.logger.info(
            "version kept: live within retain_days", extra={"dataset": record.name, "version": version, "due": due}
        )
        self.schedule(record.name, version, due)
        return True

    def _resume(self, message: DeleteVersion, cursor: int) -> None:
        self.outbox.send(DeleteVersion(message.dataset, message.version, message.not_before, cursor), 1)

    def _delete(self, keys: list[Item], delivery: Delivery) -> bool:
        if self.monotonic() >= delivery.deadline:
            return False
        return not self.writer.delete(keys, deadline=delivery.deadline).unfinished


class LoadRecords(ServedVersions, Protocol):
    def all(self) -> list[DatasetRecord]: ...


@dataclass(kw_only=True, slots=True)
class Sweeper:
    """Fails loads that stopped making progress, and collects builds a crash left behind."""

    datasets: LoadRecords
    builds: BuildRecords
    failures: Failures
    going_live: GoLive
    deletions: Deletions
    clock: Clock
    stall_seconds: float
    delete_grace: float

    def sweep(self) -> int:
        """Fail every load that has shown no progress for ``stall_seconds``; returns how many were failed."""
        now, failed = self.clock(), 0
        for record in self.datasets.all():
            if record.status == LoadStatus.LOADING and record.heartbeat is not None:
                idle = now - record.heartbeat
                if idle >= self.stall_seconds:
                    self._fail_stalled(record, f"no progress for {int(idle)} seconds: the load was stopped")
                    failed += 1
            self._collect(record, now)
        if failed:  # (the loads the sweep had to take over; the stack alarms on it)
            self.failures.telemetry.metrics.add_metric(name="LoadsStalled", unit=MetricUnit.Count, value=failed)
        return failed

    def _fail_stalled(self, record: DatasetRecord, reason: str) -> None:
        name, build = record.name, record.load.version
        found = self.builds.get(name, build) if build is not None else None
        if build is None or found is None:  # it never got as far as a report
            self.failures.record_failure(name, build, [Problem("", None, reason)], reported=False)
            return
        if found.complete:  # every chunk is written: the invocation that was to finish it died; finish it here
            self.going_live.finalize(name, build)
            after = self.datasets.get(name, consistent=True)
            if after is not None and after.load.version == build and after.status != LoadStatus.LOADING:
                return
        self.failures.fail_build(name, build, reason)

    def _collect(self, record: DatasetRecord, now: float) -> None:
        """Delete builds that no one serves: abandoned ones once their writers are done, once-live ones after the
        grace period, and builds whose deletion was scheduled long ago but has not happened (its message lost).

        A crash can leave such a build behind (for instance between a switch and the deletion it schedules);
        builds still being written are left to finish, or to the stall check.
        """
        kept = {record.live, record.previous}
        builds = self.builds.all(record.name)
        for build in builds:
            not_before = None if build.build in kept else self._deletion_due(build, now)
            if not_before is not None:
                self.deletions.schedule(record.name, build.build, not_before)
        self._bring_forward(record, [b for b in builds if b.build not in kept], now)

    def _bring_forward(self, record: DatasetRecord, builds: list[BuildRecord], now: float) -> None:
        """Deletions scheduled further out than the folder's ``retain_days`` now keep them (the setting was lowered)
        are brought forward to when those days end."""
        far = [
            build
            for build in builds
            if build.state == BuildState.DELETING and (build.delete_after or 0.0) > now + self.delete_grace
        ]
        if not far:
            return
        timeline = self.datasets.timeline(record.name, consistent=True)
        for build in far:
            stopped = timeline.last_until(build.build)
            if stopped is None or build.delete_after is None:
                continue
            due = max(keep_until(stopped, record.retain_days, self.delete_grace), now)
            if due < build.delete_after:
                self.deletions.schedule(record.name, build.build, due)

    def _deletion_due(self, build: BuildRecord, now: float) -> float | None:
        """When a build no one serves may be deleted; None when it is not to be deleted (yet)."""
        if build.state == BuildState.ABANDONED:
            return now  # (its deletion waits for its writers by itself)
        if build.state == BuildState.LIVE or (build.state in UNFINISHED and build.switched is not None):
            return now + self.delete_grace
        if build.state == BuildState.DELETING and build.delete_after is None:
            return now + self.delete_grace  # scheduled without a record of when: as if it stopped being live now
        if build.state == BuildState.DELETING and build.delete_after is not None:
            overdue = build.delete_after + self.stall_seconds <= now
            return now if overdue else None  # overdue: its deletion message was lost
        return None
