"""Going live: once every chunk of a build is written, the build becomes the live version in one conditional
write, the version it replaces becomes the rollback target, and the one before that is scheduled for deletion.
A build of a dated folder is placed in the history at its date instead (``loading.backfilling``).

Each step is safe to repeat: until the build is LIVE, a chunk delivered again finalizes it again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.events import ChangeEvents, NoEvents
from fencepost.core.events.kinds import version_live
from fencepost.core.versions.history import keep_until
from fencepost.loading.failing import Failures, LoadEnds, Scheduler
from fencepost.loading.ports import BuildStates, Clock, SinkRequests, TableRequests, Telemetry
from fencepost.loading.reports import Reports, iso
from fencepost.model import BuildRecord, BuildState, DatasetRecord, LoadStatus, ObjectRef, Phase, Switch, Switched


class LiveSwitch(LoadEnds, Protocol):
    def switch_live(
        self,
        name: str,
        build: int,
        *,
        ranges: int,
        objects: list[ObjectRef],
        loaded_at: str,
        now: float,
        settings: str | None = None,
        changed: tuple[float, float] | None = None,
    ) -> Switched: ...


class BillingMode(Protocol):
    def __call__(self) -> str: ...


class Placing(Protocol):
    def place(self, record: BuildRecord) -> bool: ...
    def resume(self, dataset: str) -> None: ...


@dataclass(kw_only=True, slots=True)
class GoLive:
    datasets: LiveSwitch
    builds: BuildStates
    reports: Reports
    deletions: Scheduler
    failures: Failures
    telemetry: Telemetry
    clock: Clock
    delete_grace: float
    billing_mode: BillingMode
    backfill: Placing
    tables: TableRequests | None = None  # the tables function, told of each version going live
    sinks: SinkRequests | None = None  # the folder's sinks (WAF IP sets, a prefix list), pushed each live version
    events: ChangeEvents = field(default_factory=NoEvents)  # "Dataset version live", once a build

    def finalize(self, dataset: str, build: int) -> None:
        record = self.builds.get(dataset, build)
        if record is None or record.state not in (BuildState.WRITING, BuildState.FINALIZING) or not record.complete:
            return
        finalizing = [BuildState.WRITING, BuildState.FINALIZING]
        if not self.builds.set_state(dataset, build, BuildState.FINALIZING, expect=finalizing):
            return  # abandoned since it was read (its load was failed by whoever abandoned it), or finished
        now = self.clock()
        if record.dated is not None:
            self._placed(record, now)
            return
        switched = self.datasets.switch_live(
            dataset,
            build,
            ranges=record.ranges,
            objects=record.objects,
            loaded_at=iso(now),
            now=now,
            settings=record.settings,
            changed=record.changed,
        )
        if switched.result is Switch.ABANDONED:
            return  # abandoned between the two steps: it never went live
        if switched.result is Switch.SWITCHED:  # announced by the one invocation whose switch made it live
            self._announce(record, switched.before)
        if switched.result is Switch.STALE:
            self.failures.fail_build(dataset, build, "superseded: a newer version went live, or the folder was emptied")
            return
        self.datasets.end_load(dataset, build, LoadStatus.READY, now, phase=Phase.DONE, items_written=record.written)
        before = switched.before
        if switched.result is Switch.SWITCHED and before is not None and before.previous is not None:
            # The previous version stopped being live when the one replaced now became live (switch or rollback
            # alike set ``live_since``): no warm lookup reads it once ``delete_grace`` has passed since then.
            # Kept ``retain_days`` after that, when the folder keeps history (``core.versions.history``).
            stopped = before.live_since if before.live_since is not None else now
            not_before = keep_until(stopped, before.retain_days, self.delete_grace)
            self.deletions.schedule(dataset, before.previous, not_before)
        self.reports.update(record, LoadStatus.READY)
        if switched.result is Switch.SWITCHED:
            self.backfill.resume(dataset)  # dated folders wait while live files load
            self._tell(dataset, build)
        # Last: until the build is LIVE, a chunk delivered again finalizes it again (each step above is repeatable).
        if not self.builds.set_state(dataset, build, BuildState.LIVE, expect=[BuildState.FINALIZING]):
            return  # another invocation finished it first, and counted it
        self._counted(record, now)
        log = self.telemetry.logger
        log.info("version is live", extra={"dataset": dataset, "version": build, "items": record.written})
        if self.billing_mode() == "PROVISIONED":
            log.warning(
                "the table is still PROVISIONED: once loads are done, switch it to on-demand with a plain "
                "`cdk deploy` (see the README), or pay for the provisioned capacity every hour",
                extra={"dataset": dataset},
            )

    def _tell(self, dataset: str, build: int) -> None:
        """Those that follow the live version: the tables function (its Parquet written, and the live table moved to
        it) and the folder's sinks."""
        for told in (self.tables, self.sinks):
            if told is not None:
                told(dataset, build)

    def _placed(self, record: BuildRecord, now: float) -> None:
        """A dated build, all written: placed in the history at its date (``loading.backfilling``), never live."""
        dataset, build = record.dataset, record.build
        if not self.backfill.place(record):
            return  # abandoned between the two steps (whoever abandoned it failed it)
        self.datasets.end_load(dataset, build, LoadStatus.READY, now, phase=Phase.DONE, items_written=record.written)
        self.reports.update(record, LoadStatus.READY)
        if self.builds.set_state(dataset, build, BuildState.LIVE, expect=[BuildState.FINALIZING]):
            self._counted(record, now)

    def _announce(self, record: BuildRecord, before: DatasetRecord | None) -> None:
        """Announce the version live: the version it replaced, and its diff summary against it (``before``: the
        dataset's record as the switch found it). Once: only the invocation whose switch made it live announces it,
        before anything else of the finishing steps can fail. (A dated build is placed in the history, never live.)"""
        dataset, build = record.dataset, record.build
        previous, diff = _replaced(before, build), _diff(before, build)
        event = version_live(dataset, build, previous=previous, ranges=record.ranges, items=record.written, diff=diff)
        self.events.publish(event)

    def _counted(self, record: BuildRecord, now: float) -> None:
        metrics = self.telemetry.metrics
        metrics.add_metric(name="LoadsSucceeded", unit=MetricUnit.Count, value=1)
        if record.started is not None:
            metrics.add_metric(name="LoadSeconds", unit=MetricUnit.Seconds, value=round(now - record.started, 3))


def _replaced(before: DatasetRecord | None, build: int) -> int | None:
    """The version ``build`` replaced (the record read by the switch may already show it live, when it ran twice)."""
    if before is None:
        return None
    return before.previous if before.live == build else before.live


def _diff(before: DatasetRecord | None, build: int) -> dict[str, Any] | None:
    """The build's diff summary against the version it replaced, as its record held it."""
    if before is None or before.load.version != build or before.load.diff is None:
        return None
    return asdict(before.load.diff)
