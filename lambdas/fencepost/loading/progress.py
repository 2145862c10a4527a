"""What reading a build's objects shares, whatever their format: the running totals (``Read``), the failure that
stops a load (``LoadFailure``), and the one watch that reports progress every few seconds and stops before the
invocation's deadline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fencepost.core.folders.limits import Limits
from fencepost.core.formats.base import FileError
from fencepost.core.versions.build import Collector, ProblemLog
from fencepost.loading.ports import Clock, LoadProgress, Telemetry
from fencepost.model import Problem

PROGRESS_EVERY = 5.0  # seconds between progress updates (record and log) while reading
TOO_SLOW = (
    "reading the objects took longer than one invocation allows: give the loader more memory (and so more CPU) "
    "or split the folder's data"
)


class LoadFailure(Exception):
    """The load cannot go on; ``earlier`` are the row problems found before, which often explain it (``total``:
    how many there were in all, counting this one; ``rows``: the ranges read before it)."""

    def __init__(
        self,
        reason: str,
        *,
        object_key: str = "",
        line: int | None = None,
        earlier: Sequence[Problem] = (),
        total: int | None = None,
        rows: int = 0,
    ) -> None:
        super().__init__(reason)
        self.problem = Problem(object_key, line, reason)
        self.earlier, self.total, self.rows = list(earlier), total, rows

    @property
    def problems(self) -> list[Problem]:
        return [self.problem, *self.earlier]


@dataclass(slots=True)
class Read:
    """What the objects of a build have given so far."""

    limits: Limits = field(default_factory=Limits)  # the limits this build is held to
    collector: Collector = field(default_factory=Collector)
    problems: ProblemLog = field(default_factory=ProblemLog)
    columns: tuple[str, ...] = ()
    rows: int = 0  # ranges accepted
    lines: int = 0  # lines read, of every object so far
    bytes: int = 0  # bytes read (decompressed), of every object so far
    aliases: set[str] = field(
        default_factory=set
    )  # IPv6 prefixes answered as IPv4 (``core.space.aliases``; MaxMind DB)
    epochs: dict[str, int] = field(default_factory=dict)  # each MaxMind DB object's build epoch (its data's date)
    last_modified: dict[str, str] = field(default_factory=dict)  # a fetched object's release's Last-Modified header
    enddates: dict[str, str] = field(default_factory=dict)  # the day a text object says its data runs to (RIR files)
    published: dict[str, str] = field(default_factory=dict)  # when a JSON document says it was made (its own stamp)


@dataclass(kw_only=True, slots=True)
class Watch:
    """One object being read: ``check`` reports progress every ``PROGRESS_EVERY`` seconds (the dataset's record and
    a log line) and raises ``FileError`` once the deadline has passed."""

    datasets: LoadProgress
    telemetry: Telemetry
    clock: Clock
    monotonic: Clock
    dataset: str
    build: int
    key: str
    deadline: float
    next_report: float = float("-inf")

    def __post_init__(self) -> None:
        self.next_report = self.monotonic() + PROGRESS_EVERY

    def check(self, line: int | None, rows_read: int, **done: Any) -> None:
        now = self.monotonic()
        if now >= self.deadline:
            raise FileError(line, TOO_SLOW)
        if now >= self.next_report:
            self.datasets.update_load(self.dataset, self.build, self.clock(), rows_read=rows_read)
            self.telemetry.logger.info("reading", extra={"dataset": self.dataset, "object": self.key, **done})
            self.next_report = now + PROGRESS_EVERY
