"""Reading a build's objects: every row checked and collected, in key order, with progress reported every few
seconds, and a clear failure (not a timeout) when reading would outlast the invocation."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.build import Collector, ProblemLog
from fencepost.core.formats import FileError, ReadOptions, read_ranges
from fencepost.loading.ports import Clock, LoadProgress, Telemetry
from fencepost.model import ObjectRef, Problem

PROGRESS_EVERY = 5.0  # seconds between progress updates (record and log) while reading


class LoadFailure(Exception):
    """The load cannot go on; ``earlier`` are the row problems found before, which often explain it."""

    def __init__(
        self, reason: str, *, object_key: str = "", line: int | None = None, earlier: Sequence[Problem] = ()
    ) -> None:
        super().__init__(reason)
        self.problem = Problem(object_key, line, reason)
        self.earlier = list(earlier)

    @property
    def problems(self) -> list[Problem]:
        return [self.problem, *self.earlier]


@dataclass(slots=True)
class Read:
    collector: Collector = field(default_factory=Collector)
    problems: ProblemLog = field(default_factory=ProblemLog)
    columns: tuple[str, ...] = ()
    rows: int = 0


class Lines(Protocol):
    def lines(self, key: str) -> Iterator[bytes]: ...


@dataclass(kw_only=True, slots=True)
class Reader:
    files: Lines
    datasets: LoadProgress
    telemetry: Telemetry
    clock: Clock
    monotonic: Clock

    def read(self, dataset: str, build: int, objects: list[ObjectRef], options: ReadOptions, deadline: float) -> Read:
        """Every object's rows into one collector, in key order; the columns must agree. Raises ``LoadFailure``."""
        read = Read()
        first = ""
        for obj in objects:
            lines = self._watch(
                dataset, build, obj.key, self.files.lines(obj.key), rows_before=read.rows, deadline=deadline
            )
            try:
                summary = read_ranges(obj.key, lines, options, read.collector, read.problems)
            except FileError as error:
                raise LoadFailure(
                    error.reason, object_key=obj.key, line=error.line, earlier=read.problems.kept
                ) from None
            read.rows += summary.rows
            if not first:
                read.columns, first = summary.columns, obj.key
            elif summary.columns != read.columns:
                raise LoadFailure(
                    f"{obj.key} has the metadata columns {list(summary.columns)} but {first} has "
                    f"{list(read.columns)}: all objects of a dataset must have the same columns",
                    object_key=obj.key,
                    earlier=read.problems.kept,
                )
        self.telemetry.metrics.add_metric(name="RowsRead", unit=MetricUnit.Count, value=read.rows)
        return read

    def _watch(
        self, dataset: str, build: int, key: str, lines: Iterator[bytes], *, rows_before: int, deadline: float
    ) -> Iterator[bytes]:
        """Pass lines through, reporting progress every few seconds and stopping before the deadline."""
        next_report = self.monotonic() + PROGRESS_EVERY
        for count, line in enumerate(lines, 1):
            if count % 4096 == 0 and self.monotonic() >= next_report:
                if self.monotonic() >= deadline:
                    raise LoadFailure(
                        "reading the objects took longer than one invocation allows: give the loader more memory "
                        "(and so more CPU) or split the folder's data",
                        object_key=key,
                        line=count,
                    )
                self.datasets.update_load(dataset, build, self.clock(), rows_read=rows_before + count)
                self.telemetry.logger.info("reading", extra={"dataset": dataset, "object": key, "lines": count})
                next_report = self.monotonic() + PROGRESS_EVERY
            yield line
