"""Dated folders (``<dataset>/_history/<YYYY-MM-DD>/``) built as past versions, one folder per build request.

A build request of a dataset whose live files have not changed looks at its dated folders (``core.folders.backfill`` has
the rules): the versions of folders that are gone are marked gone in the history and deleted; then the earliest folder
whose sources changed is built (or refused, with a problem naming it), and the dataset's next build is requested at
once, so a year of monthly folders builds one after another, each through the ordinary path (read, flatten, write,
report) with its own build number. Changed live files go first (a reload never waits behind a long backfill): once
their version goes live, the dated folders' builds resume (``resume``).

A dated build is written like any other; instead of going live, it is placed in the history at its date
(``place``, from ``loading.going_live``). The gates do not apply to it, and it asks for no exports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from fencepost.core.folders.backfill import Dated, date_instant, next_step
from fencepost.core.folders.fingerprint import fingerprint
from fencepost.core.folders.gates import Gates
from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.storage.objects import dated_prefixes
from fencepost.core.versions.history import Timeline
from fencepost.errors import DependencyUnavailable
from fencepost.loading.failing import Failures, Scheduler
from fencepost.loading.ports import Clock, Telemetry
from fencepost.model import BuildRecord, ObjectRef, Problem

# A dated folder's version is no live version's rival: no gate compares it with anything, nothing is exported
UNGATED = Gates(min_ranges=0, max_removed_percent=None, max_change_percent=None)


class DatedHistory(Protocol):
    def timeline(self, dataset: str, *, consistent: bool = False) -> Timeline: ...
    def mark_gone(self, dataset: str, version: int, now: float) -> None: ...
    def dated(self, dataset: str) -> dict[str, Dated]: ...
    def put_dated(self, dataset: str, state: Dated) -> None: ...
    def forget_dated(self, dataset: str, date: str) -> None: ...
    def place(self, dataset: str, build: int, date: str, now: float) -> bool: ...


class DatedFolders(Protocol):
    def list_dated(self, dataset: str) -> dict[str, list[ObjectRef]]: ...


# Builds the folder of a date with the settings given; True once its version is being written
BuildOne = Callable[[str, list[ObjectRef], FolderSettings], bool]


def dated_settings(settings: FolderSettings) -> FolderSettings:
    """A dated folder is read with its dataset's settings, without gates or exports."""
    return replace(settings, gates=UNGATED, exports=())


def folder_of(dataset: str, date: str) -> str:
    return f"{dated_prefixes(dataset)[-1]}{date}/"


@dataclass(kw_only=True, slots=True)
class Backfill:
    history: DatedHistory
    folders: DatedFolders
    failures: Failures
    deletions: Scheduler
    next_build: Callable[[str], object]  # asks for the dataset's next build
    telemetry: Telemetry
    clock: Clock
    delete_grace: float

    def step(
        self, dataset: str, build: int, settings: FolderSettings, build_one: BuildOne, live_since: float | None
    ) -> bool:
        """Do what the dated folders need; True when it took this build (the live files wait for the next).
        ``live_since``: when the live version went live (for a history that began after it)."""
        folders = self.folders.list_dated(dataset)
        states = self.history.dated(dataset)
        if not folders and not states:
            return False
        digest = settings_digest(settings)
        sources = {date: fingerprint(((o.key, o.etag) for o in found), digest) for date, found in folders.items()}
        timeline = self.history.timeline(dataset, consistent=True)
        now = self.clock()
        step = next_step(sources, states, timeline, retain_days=settings.retain_days, now=now, live_since=live_since)
        for state in step.removed:
            self._remove(dataset, state, timeline, now)
        if step.date is None or step.sources is None:
            return False
        date, objects, taken = step.date, folders[step.date], Dated(step.date, step.sources, build)
        if step.refusal is not None:
            problem = Problem(folder_of(dataset, date), None, step.refusal)
            self.failures.fail_load(dataset, build, [problem], objects=objects)
            self.history.put_dated(dataset, replace(taken, status="FAILED", reason=step.refusal, refused=True))
        else:
            self._build(dataset, taken, states.get(date), lambda: build_one(date, objects, dated_settings(settings)))
        log = self.telemetry.logger
        log.info(
            "dated folder taken", extra={"dataset": dataset, "date": date, "build": build, "refused": step.refusal}
        )
        self.next_build(dataset)
        return True

    def _build(self, dataset: str, taken: Dated, before: Dated | None, build: Callable[[], bool]) -> None:
        """Build a dated folder, its state naming the build first (only the build its folder names is placed)."""
        self.history.put_dated(dataset, taken)
        try:
            built = build()
        except DependencyUnavailable:  # the request is delivered again: as if this attempt never was
            if before is None:
                self.history.forget_dated(dataset, taken.date)
            else:
                self.history.put_dated(dataset, before)
            raise
        except Exception as error:  # a bug: the build fails (``planning``), and the next folder's turn comes
            reason = f"the build stopped on an unexpected error: {type(error).__name__}"
            self.history.put_dated(dataset, replace(taken, status="FAILED", reason=reason))
            self.next_build(dataset)
            raise
        if not built:
            reason = f"the build failed: see the report of version {taken.build}"
            self.history.put_dated(dataset, replace(taken, status="FAILED", reason=reason))

    def _remove(self, dataset: str, state: Dated, timeline: Timeline, now: float) -> None:
        """A dated folder that is gone takes its version with it (marked gone at once, deleted after the grace),
        and the build that was reading it, if any, is abandoned."""
        placed = timeline.at(date_instant(state.date))
        if placed is not None and placed.dated and placed.at == date_instant(state.date) and placed.version:
            self.history.mark_gone(dataset, placed.version, now)
            self.deletions.schedule(dataset, placed.version, now + self.delete_grace)
        if state.build is not None and (placed is None or state.build != placed.version):
            self.failures.abandon(dataset, state.build)  # (nothing if it was never written, or failed already)
        self.history.forget_dated(dataset, state.date)
        self.telemetry.logger.info("dated folder removed", extra={"dataset": dataset, "date": state.date})

    def resume(self, dataset: str) -> None:
        """After a load of the live files went live: the dated folders' builds go on, if the dataset has any."""
        if self.folders.list_dated(dataset) or self.history.dated(dataset):
            self.next_build(dataset)

    def place(self, record: BuildRecord) -> bool:
        """Put a dated build, all written, in the history at its date; the version placed there before it (its
        folder changed) is deleted after the grace. (Like every version no longer live, this one is deleted once
        the folder's ``retain_days`` no longer keep it: the sweep schedules it, ``loading.cleanup`` decides.)"""
        assert record.dated is not None
        dataset, build, at, now = record.dataset, record.build, date_instant(record.dated), self.clock()
        before = self.history.timeline(dataset, consistent=True).at(at)
        if not self.history.place(dataset, build, record.dated, now):
            self.failures.abandon(dataset, build)  # its folder was removed, or changed and built again: not placed
            return False
        if before is not None and before.at == at and before.version not in (None, build):
            self.deletions.schedule(dataset, before.version, now + self.delete_grace)
        log = self.telemetry.logger
        log.info("dated version placed in the history", extra={"dataset": dataset, "version": build, "at": at})
        return True
