"""Plain records shared by the lookup, the loader and the data-access module."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fencepost.core.keys import Directory

# Statuses of a dataset's latest load.
LOADING = "LOADING"
READY = "READY"
FAILED = "FAILED"


@dataclass(slots=True)
class LoadState:
    """The latest load of a dataset, finished or not."""

    version: int | None = None
    phase: str = "queued"
    rows_read: int = 0
    items_written: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)
    report: str | None = None


@dataclass(slots=True)
class DatasetRecord:
    """One dataset: its live version (what lookups read) and the state of its latest load."""

    name: str
    live: int | None = None
    status: str = LOADING
    ranges: int = 0
    loaded_at: str | None = None
    objects: list[dict[str, Any]] = field(default_factory=list)
    load: LoadState = field(default_factory=LoadState)
    previous: int | None = None
    retired: bool = False
    # Loader bookkeeping, not served:
    live_since: float | None = None  # when ``live`` became live (epoch seconds)
    heartbeat: float | None = None  # last sign of life of the latest load
    requests: int = 0  # changes seen in the folder (each schedules a build; only the latest runs)
    planned: int = 0  # the request number last planned
    builds: int = 0  # the build-number counter
    floor: int = 0  # builds at or below this number can never go live (set when the dataset retires)

    def to_api(self) -> dict[str, Any]:
        """The exact shape ``GET /datasets/{name}`` serves."""
        return {
            "name": self.name,
            "version": self.live,
            "status": self.status,
            "ranges": self.ranges,
            "loaded_at": self.loaded_at,
            "objects": [{"key": o.get("key"), "etag": o.get("etag"), "size": o.get("size")} for o in self.objects],
            "load": {
                "version": self.load.version,
                "phase": self.load.phase,
                "rows_read": self.load.rows_read,
                "items_written": self.load.items_written,
                "problems": [
                    {"object": p.get("object"), "line": p.get("line"), "reason": p.get("reason")}
                    for p in self.load.problems
                ],
                "report": self.load.report,
            },
        }


# States of a build (one attempt at a version).
PLANNING = "PLANNING"  # chunks are being sent; their number is not known yet
WRITING = "WRITING"
FINALIZING = "FINALIZING"
LIVE = "LIVE"
ABANDONED = "ABANDONED"  # failed or superseded; its items are to be deleted
DELETING = "DELETING"  # its deletion is scheduled


@dataclass(slots=True)
class BuildRecord:
    """The chunks of one build and how many are written: the version switches only when all are."""

    dataset: str
    build: int
    state: str
    chunks: int
    done: set[int]
    written: int
    ranges: int
    items: int
    objects: list[dict[str, Any]]
    report: str | None = None
    started: float | None = None  # when the build began reading (epoch seconds)

    @property
    def complete(self) -> bool:
        return self.state != PLANNING and len(self.done) >= self.chunks


@dataclass(frozen=True, slots=True)
class VersionInfo:
    """What a lookup needs to know of one version of a dataset; immutable once the version is written."""

    dataset: str
    version: int
    columns: tuple[str, ...]
    directories: dict[int, Directory]
