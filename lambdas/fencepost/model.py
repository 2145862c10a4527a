"""The records the service keeps, each defined once: the data layer stores them (its codec reads these fields),
the loader changes them, and the API serves them (``DatasetRecord.to_api``)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from fencepost.core.folders.fingerprint import fingerprint
from fencepost.core.formats.problems import Problem
from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.sinks.state import SinkState
from fencepost.core.storage.keys import Directory
from fencepost.core.storage.record_fields import bookkeeping, documented, key_field, served_as
from fencepost.core.versions.data_dates import DataDate
from fencepost.core.versions.mmdb_profiles import ColumnMap

__all__ = [
    "BuildRecord",
    "BuildState",
    "DatasetRecord",
    "DiffSummary",
    "LivePointer",
    "LoadState",
    "LoadStatus",
    "ObjectRef",
    "Phase",
    "Problem",
    "Switch",
    "Switched",
    "VersionHeader",
    "VersionInfo",
]


class LoadStatus(StrEnum):
    """The state of a dataset's latest load, as the API serves it."""

    LOADING = "LOADING"
    READY = "READY"
    FAILED = "FAILED"


class Phase(StrEnum):
    """Where the latest load is (or how it ended)."""

    QUEUED = "queued"  # a change was seen; the build waits for the folder to settle
    READING = "reading"
    WRITING = "writing"
    DONE = "done"
    UNCHANGED = "unchanged"  # the folder holds the live version's objects: nothing to build
    RETIRED = "retired"  # the folder is empty: nothing is served
    FAILED = "failed"


class BuildState(StrEnum):
    """One attempt at a version."""

    PLANNING = "PLANNING"  # chunks are being sent; their number is not known yet
    WRITING = "WRITING"
    FINALIZING = "FINALIZING"
    LIVE = "LIVE"
    ABANDONED = "ABANDONED"  # failed or superseded; its items are to be deleted
    DELETING = "DELETING"  # its deletion is scheduled


# States in which a build may still go live: its chunks are written, and a repeated delivery may finish it.
UNFINISHED = (BuildState.PLANNING, BuildState.WRITING, BuildState.FINALIZING)


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """One object of a dataset's folder, as listed: a version records the objects it was built from."""

    key: str
    etag: str
    size: int


RECORD_PROBLEMS = (
    100  # problems a dataset record keeps of its latest load; the report keeps up to 10,000 and counts the rest
)


@dataclass(frozen=True, slots=True)
class DiffSummary:
    """How a build's answers differ from the version live when it was built (``fencepost.core.versions.diffs``).

    ``baseline`` None: nothing to compare with (a first version), as ``note`` says; the counts are then 0 and only
    ``min_ranges`` and ``reserved_space`` of the gates apply (``core.folders.gates``).
    """

    baseline: int | None = None
    note: str | None = None
    added: int = 0
    removed: int = 0
    changed: int = 0
    unchanged: int = 0
    changed_percent_ipv4: float = 0.0  # of the IPv4 address space, whose answer changed (found <-> NOT_FOUND too)
    changed_percent_ipv6: float = 0.0
    live_pieces_ipv4: int = documented("The live version's IPv4 pieces, which the removed shares are of.", default=0)
    live_pieces_ipv6: int = documented("The live version's IPv6 pieces.", default=0)
    removed_percent_pieces_ipv4: float = documented(
        "Share of the live version's IPv4 pieces any of whose addresses is gone or answers otherwise.", default=0.0
    )
    removed_percent_pieces_ipv6: float = documented("The same for IPv6.", default=0.0)
    removed_percent_addresses_ipv4: float = documented(
        "Share of the IPv4 addresses the live version answers that are gone or answer otherwise.", default=0.0
    )
    removed_percent_addresses_ipv6: float = documented("The same for IPv6.", default=0.0)
    added_percent_addresses_ipv4: float | None = documented(
        "Growth: IPv4 addresses added, as a share of those the live version answers; null when none.", default=0.0
    )
    added_percent_addresses_ipv6: float | None = documented("The same for IPv6.", default=0.0)
    window_changed_percent_ipv4: float = documented(
        "This build's share of the IPv4 space changed, plus those of the versions live in `change_window_hours`.",
        default=0.0,
    )
    window_changed_percent_ipv6: float = documented("The same for IPv6.", default=0.0)
    reserved: str | None = documented(
        "The first reserved network it answers for (IANA, not globally reachable); null when none.", default=None
    )
    gate: str | None = documented(
        "The gate (its folder setting) that stopped this build, `baseline` if nothing could be compared; or null.",
        default=None,
    )


@dataclass(slots=True)
class LoadState:
    """The latest load of a dataset, finished or not."""

    version: int | None = None
    phase: Phase = Phase.QUEUED
    rows_read: int = 0
    items_written: int = 0
    problems: list[Problem] = field(default_factory=list)
    report: str | None = None
    diff: DiffSummary | None = None  # against the live version, once the build has compared itself with it
    items: int = documented("The items the build writes in all, known once it writes (0 before).", default=0)


@dataclass(slots=True)
class DatasetRecord:
    """One dataset: its live version (what lookups read) and the state of its latest load."""

    name: str
    live: int | None = served_as("version", "The live version; null before the first successful load.", default=None)
    status: LoadStatus = documented("State of the latest load.", default=LoadStatus.LOADING)  # noqa: RUF009
    ranges: int = 0
    loaded_at: str | None = None
    built_at: str | None = documented("When the live version was built (RFC 3339, UTC).", default=None)
    data_date: DataDate | None = documented(  # noqa: RUF009
        "The live version's data's own date as its publisher states it: `date`, `source` (`mmdb`, `rir`, "
        "`document`, `last-modified` or `name`), `object`; null when none does (docs/datasets.md).",
        default=None,
    )
    objects: list[ObjectRef] = field(default_factory=list)
    load: LoadState = field(default_factory=LoadState)
    sinks: list[SinkState] = field(default_factory=list, metadata={"doc": "Each sink's last push: docs/sinks.md."})
    previous: int | None = bookkeeping(default=None)  # the rollback target
    retired: bool = bookkeeping(default=False)
    live_since: float | None = bookkeeping(default=None)  # when ``live`` became live (epoch seconds)
    heartbeat: float | None = bookkeeping(default=None)  # last sign of life of the latest load
    requests: int = bookkeeping(default=0)  # changes seen in the folder (each schedules a build; the latest runs)
    planned: int = bookkeeping(default=0)  # the request number last planned
    builds: int = bookkeeping(default=0)  # the build-number counter
    floor: int = bookkeeping(default=0)  # builds at or below this number can never go live (set on retiring)
    settings: str | None = bookkeeping(default=None)  # the digest of the folder settings ``live`` was built with
    # After a rollback: the fingerprint of the sources rolled away from. A folder that still holds exactly them is
    # not a change, so neither a repeated notification nor a reconcile rebuilds them over the rollback.
    held: str | None = bookkeeping(default=None)
    retain_days: int = bookkeeping(default=0)  # the folder's ``retain_days``, as last read (``core.versions.history``)
    max_age: int = bookkeeping(default=0)  # the folder's ``max_age`` (seconds), as last read (core.folders.max_age)
    accepted: str | None = bookkeeping(default=None)  # sources a person let past the gates once (admin accept)

    @property
    def sources(self) -> str:
        """The fingerprint of what the live version was built from (``fencepost.core.folders.fingerprint``)."""
        return fingerprint(((o.key, o.etag) for o in self.objects), self.settings)

    def to_api(self) -> dict[str, Any]:
        """The exact shape ``GET /datasets/{name}`` serves: every served field, under its API name."""
        served = {}
        for spec in fields(self):
            if spec.metadata.get("served", True):
                served[spec.metadata.get("api", spec.name)] = _plain(getattr(self, spec.name))
        return served


def _plain(value: Any) -> Any:
    """Records as JSON-ready values: dataclasses as objects in field order, enums as their text."""
    if isinstance(value, StrEnum):
        return str(value)
    if hasattr(value, "__dataclass_fields__"):
        return {spec.name: _plain(getattr(value, spec.name)) for spec in fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(element) for element in value]
    return value


@dataclass(slots=True)
class BuildRecord:
    """The chunks of one build and how many are written: the version switches only when all are."""

    dataset: str = key_field()
    build: int = key_field()
    state: BuildState = BuildState.PLANNING
    chunks: int = 0
    done: set[int] = field(default_factory=set)
    written: int = 0
    ranges: int = 0
    items: int = 0
    objects: list[ObjectRef] = field(default_factory=list)
    report: str | None = None
    started: float | None = None  # when the build began reading (epoch seconds)
    settings: str | None = None  # the digest of the folder settings it was built with
    switched: float | None = None  # when it went live (set with the switch itself): it is never abandoned after
    delete_after: float | None = None  # once DELETING: when its deletion may start
    dated: str | None = None  # built from the dated folder of this date: placed in the history, never live
    # The percent of the IPv4 and IPv6 space whose answer it changed against the version live when it was built
    # (None: a first version); recorded in the history when it goes live (``core.versions.history.changed_since``)
    changed: tuple[float, float] | None = None
    built_at: str | None = None  # when its version was built (``VersionHeader.created_at``)
    data_date: DataDate | None = None  # its data's own date (``VersionHeader.data_date``)

    @property
    def complete(self) -> bool:
        return self.state != BuildState.PLANNING and len(self.done) >= self.chunks


class Switch(StrEnum):
    """What became of an attempt to make a build live."""

    SWITCHED = "switched"
    ALREADY_LIVE = "already live"
    STALE = "stale"  # a newer version is live, or the dataset retired after this build began
    ABANDONED = "abandoned"  # the build was abandoned before it could go live (whoever abandoned it failed it)


@dataclass(frozen=True, slots=True)
class LivePointer:
    """What a lookup needs to know of a dataset: which version is live, and since when (epoch seconds)."""

    dataset: str
    version: int
    live_since: float | None = None

    @classmethod
    def of(cls, record: DatasetRecord | None) -> LivePointer | None:
        """The pointer a record implies; None when nothing is served (no live version, or retired)."""
        if record is None or record.live is None or record.retired:
            return None
        return cls(record.name, record.live, record.live_since)


@dataclass(frozen=True, slots=True)
class Switched:
    result: Switch
    before: DatasetRecord | None = None  # the record as it was before the switch


@dataclass(frozen=True, slots=True)
class VersionHeader:
    """What a version was built from; stored beside its directory pages."""

    columns: tuple[str, ...]
    ranges: int
    items: int
    objects: list[ObjectRef]
    created_at: str
    settings: str | None = None  # the digest of the folder settings it was built with
    gaps: bool | None = None  # True: its pieces carry the gaps after them (None: built before gaps were stored)
    aliases: tuple[str, ...] | None = None  # IPv6 prefixes answered as the IPv4 address they carry (core.space.aliases)
    indexed: tuple[str, ...] | None = None  # the columns with a value index (core.versions.value_index), in key order
    numeric: tuple[str, ...] | None = None  # the columns a MaxMind DB export stores as numbers
    data_date: DataDate | None = None  # its data's own date, as the publisher states it (core.versions.data_dates)
    keyed: str | None = None  # a keyed dataset's version: its key column (its rows: core.storage.objects.keys_key)
    keyed_joins: str | None = None  # the keyed datasets joined into its answers, as JSON (core.keyed.join_spec)
    profile_columns: str | None = None  # the folder's mmdb_profile_columns, as JSON (core.versions.mmdb_profiles)


@dataclass(frozen=True, slots=True)
class VersionInfo:
    """What a lookup needs to know of one version of a dataset; immutable once the version is written."""

    dataset: str
    version: int
    columns: tuple[str, ...]
    directories: dict[int, Directory]
    gaps: bool = False  # NOT_FOUND answers can say how far the gap reaches (``VersionHeader.gaps``)
    aliases: tuple[tuple[int, int], ...] = ()  # (first address, prefix length) of each (``core.space.aliases``)
    indexed: tuple[str, ...] = ()  # the columns with a value index (``VersionHeader.indexed``)
    created_at: str = ""  # when the version was built (``VersionHeader.created_at``, ISO 8601)
    numeric: tuple[str, ...] = ()  # ``VersionHeader.numeric``
    data_date: DataDate | None = None  # ``VersionHeader.data_date``
    keyed: str | None = None  # ``VersionHeader.keyed``: a keyed version has no ranges, only its table of keys
    keyed_joins: tuple[KeyedJoin, ...] = ()  # ``VersionHeader.keyed_joins``, parsed
    profile_columns: ColumnMap = ()  # ``VersionHeader.profile_columns``, parsed: what its GeoLite2 exports read
