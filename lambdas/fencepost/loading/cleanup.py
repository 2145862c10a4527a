"""Clean-up: deleting versions no one serves any more, and the sweep that fails stalled loads.

A version stops being served when a newer one goes live (the one before it stays as the rollback target) or
when its dataset retires; it is deleted once no warm lookup can still read it (``delete_grace`` after that).
Builds that failed are deleted at once. A deletion is a message on the data queue that walks the version's
partitions, remembering where it got to, and waits in hops of at most 15 minutes (SQS's longest delay).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from fencepost.core.addresses import FAMILIES
from fencepost.core.items import Item
from fencepost.core.keys import range_pk
from fencepost.loading.delivery import Delivery
from fencepost.loading.failing import Failures
from fencepost.loading.going_live import GoLive
from fencepost.loading.messages import DeleteVersion
from fencepost.loading.ports import BuildStates, Clock, Outbox, Telemetry, Writer
from fencepost.model import BuildRecord, BuildState, DatasetRecord, LoadStatus, Problem, VersionInfo


class ServedVersions(Protocol):
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...


class VersionItems(Protocol):
    def get(self, dataset: str, version: int) -> VersionInfo | None: ...
    def keys(self, dataset: str, version: int) -> list[Item]: ...
    def partition_keys(self, pk: str) -> Iterator[list[Item]]: ...


class BuildRecords(BuildStates, Protocol):
    def delete(self, dataset: str, build: int) -> None: ...
    def all(self, dataset: str) -> list[BuildRecord]: ...


@dataclass(kw_only=True, slots=True)
class Deletions:
    datasets: ServedVersions
    versions: VersionItems
    builds: BuildRecords
    writer: Writer
    outbox: Outbox
    telemetry: Telemetry
    clock: Clock
    monotonic: Clock

    def schedule(self, dataset: str, version: int, not_before: float) -> None:
        self.outbox.send(DeleteVersion(dataset, version, not_before), not_before - self.clock())
        self.builds.set_state(dataset, version, BuildState.DELETING)  # (a version without a build record has none)

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
        self.builds.delete(dataset, version)
        self.telemetry.logger.info("old version deleted", extra={"dataset": dataset, "version": version})

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
        """Delete builds that no one serves: abandoned ones at once, once-live ones after the grace period.

        A crash can leave such a build behind (for instance between a switch and the deletion it schedules);
        builds still being written are left to finish, or to the stall check.
        """
        kept = {record.live, record.previous}
        for build in self.builds.all(record.name):
            if build.build in kept:
                continue
            if build.state == BuildState.ABANDONED:
                self.deletions.schedule(record.name, build.build, now)
            elif build.state == BuildState.LIVE:
                self.deletions.schedule(record.name, build.build, now + self.delete_grace)
