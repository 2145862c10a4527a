"""Failing a load: the report says why, the dataset's record says FAILED, the build's items are deleted, and the
live version keeps answering. A build that meets an error the loader does not expect (a bug, or a request that
DynamoDB refuses as invalid) fails the same way, with the error's type and message as its reason."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.events import ChangeEvents, NoEvents
from fencepost.core.events.kinds import build_failed, build_refused
from fencepost.core.folders.gates import Gates, Refusal
from fencepost.core.formats.problems import for_record
from fencepost.core.storage.objects import report_key, settings_keys
from fencepost.core.versions.build import ProblemLog
from fencepost.loading.ports import BuildStates, Clock, LoadProgress, Telemetry
from fencepost.loading.progress import Read
from fencepost.loading.reports import Reports
from fencepost.model import (
    RECORD_PROBLEMS,
    UNFINISHED,
    BuildState,
    DatasetRecord,
    DiffSummary,
    LoadStatus,
    ObjectRef,
    Phase,
    Problem,
)


class LoadEnds(Protocol):
    def end_load(
        self,
        name: str,
        build: int | None,
        status: LoadStatus,
        now: float,
        *,
        phase: Phase,
        items_written: int | None = None,
        problems: list[Problem] | None = None,
        report: str | None = None,
    ) -> bool: ...


class LoadRecords(LoadEnds, LoadProgress, Protocol):
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...


class Scheduler(Protocol):
    def schedule(self, dataset: str, version: int, not_before: float) -> None: ...


@dataclass(kw_only=True, slots=True)
class Failures:
    datasets: LoadRecords
    builds: BuildStates
    reports: Reports
    deletions: Scheduler
    telemetry: Telemetry
    clock: Clock
    events: ChangeEvents = field(default_factory=NoEvents)  # "Dataset build failed"

    def fail_load(
        self,
        dataset: str,
        build: int,
        problems: Sequence[Problem],
        total: int | None = None,
        *,
        rows: int = 0,
        objects: list[ObjectRef] | None = None,
        started: float | None = None,
        announce: bool = True,
    ) -> bool:
        """A load that failed before writing anything: its report, then its record; False when a newer load had
        taken over (``announce``: announce it as a failed build)."""
        log = ProblemLog()
        for problem in problems:
            log.add(problem)
        log.count = max(log.count, total or 0)
        self.reports.write(
            dataset, build, LoadStatus.FAILED, objects=objects or [], rows=rows, items=0, problems=log, started=started
        )
        return self.record_failure(dataset, build, problems, announce=announce)

    def refuse(
        self,
        dataset: str,
        build: int,
        refusal: Refusal,
        summary: DiffSummary,
        read: Read,
        *,
        gates: Gates,
        objects: list[ObjectRef],
        started: float,
    ) -> None:
        """Fail a build a gate stopped: the figures that failed it in ``load.diff``, the reason in its report and
        record, and one "Dataset build refused" event with the gate's limit in ``gates`` (not "build failed")."""
        diff = replace(summary, gate=refusal.gate)
        self.datasets.update_load(dataset, build, self.clock(), diff=diff)
        problems = [Problem(settings_keys(dataset)[-1], None, refusal.reason), *read.problems.kept]
        total = read.problems.total + 1
        if self.fail_load(
            dataset, build, problems, total, rows=read.rows, objects=objects, started=started, announce=False
        ):
            limit, live = getattr(gates, refusal.gate, None), summary.baseline
            event = build_refused(
                dataset, build, gate=refusal.gate, limit=limit, reason=refusal.reason, live=live, diff=asdict(diff)
            )
            self.events.publish(event)

    def record_failure(
        self,
        dataset: str,
        build: int | None,
        problems: Sequence[Problem],
        *,
        reported: bool = True,
        announce: bool = True,
    ) -> bool:
        """Record that the load of ``build`` failed (if it is still the latest: else False), count it, say why
        and, when ``announce``, announce it."""
        ended = self.datasets.end_load(
            dataset,
            build,
            LoadStatus.FAILED,
            self.clock(),
            phase=Phase.FAILED,
            problems=for_record(problems, RECORD_PROBLEMS),
            report=report_key(dataset, build) if reported and build is not None else None,
        )
        if not ended:
            return False  # a newer load has taken over: this one was superseded, not failed
        self.telemetry.metrics.add_metric(name="LoadsFailed", unit=MetricUnit.Count, value=1)
        reason = problems[0].reason
        self.telemetry.logger.warning("load failed", extra={"dataset": dataset, "build": build, "reason": reason})
        if announce and not isinstance(self.events, NoEvents):  # the record read only for the event
            served = self.datasets.get(dataset)
            self.events.publish(build_failed(dataset, build, reason, live=None if served is None else served.live))
        return True

    def fail_unexpected(self, dataset: str, build: int, error: Exception) -> None:
        """Fail a build on an error the loader does not expect, instead of delivering its message again and again.

        The reason (the error's type and message) goes to the report and the record; the stack to the log. A build
        with no build record has written nothing yet (that record is written first): its load just fails.
        """
        problem = Problem("", None, f"the build stopped on an unexpected error: {type(error).__name__}: {error}")
        self.telemetry.logger.exception(
            "build failed on an unexpected error", extra={"dataset": dataset, "build": build, "reason": problem.reason}
        )
        if self.builds.get(dataset, build) is None:
            self.fail_load(dataset, build, [problem])
        else:
            self.fail_build(dataset, build, problem.reason)

    def abandon(self, dataset: str, build: int) -> None:
        """Give up a build (its attempt hit a passing fault): whatever it wrote is deleted."""
        if not self.builds.set_state(dataset, build, BuildState.ABANDONED, expect=UNFINISHED):
            return  # no record (nothing was written), abandoned already, or it went live: nothing to delete here
        self.deletions.schedule(dataset, build, self.clock())

    def fail_build(self, dataset: str, build: int, reason: str) -> None:
        """Abandon a build that cannot finish: its load fails, its items are deleted, the live version stays.

        A build that went live is no failure, whatever happened after its switch: it is left to be finished (by a
        chunk delivered again, or by the sweep).
        """
        served = self.datasets.get(dataset, consistent=True)
        if served is not None and build in (served.live, served.previous):
            return
        if not self.builds.set_state(dataset, build, BuildState.ABANDONED, expect=UNFINISHED):
            return
        record = self.builds.get(dataset, build)
        if record is not None:
            self.reports.update(record, LoadStatus.FAILED, reason)
        self.record_failure(dataset, build, [Problem("", None, reason)])
        self.deletions.schedule(dataset, build, self.clock())
