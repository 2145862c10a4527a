"""Versions for a job: from files of ranges on this machine (``--ranges FILE``: no service, one version, live since
forever; keyed datasets from files too, ``--keyed``), or from the service: its history and version headers (the
lookup's own read path), each version's table file from the bucket (``core.storage.objects.table_key``; no range is
read from the table), and each keyed version's table as lookups read it (``reading.keyed_tables``: the bucket's
``keys_key`` object)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.space.aliases import parse_alias
from fencepost.core.storage.objects import table_key
from fencepost.core.versions.history import Event, Timeline
from fencepost.enrichment.input_lines import JobError
from fencepost.enrichment.resolving import VersionSource
from fencepost.enrichment.table import TableError, VersionTable
from fencepost.errors import NoVersionAt, ServiceError, UnknownDataset
from fencepost.loading.local_files import build_files, keyed_files
from fencepost.loading.progress import LoadFailure
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.keyed_tables import KeyedTables, TableMissing
from fencepost.reading.past import History
from fencepost.settings import CacheLimits

FILE_VERSION = 1


class RangesError(ValueError):
    """Files of ranges that a load would refuse; the message says why."""


class FileSource:
    """One dataset built from local files with the loader's recipe, answered as its version 1; the keyed datasets
    its ``keyed_joins`` name answer from ``keyed`` (tables from files, ``keyed_file_tables``), each as its version 1
    live since forever, and a keyed dataset not there as one not loaded (its joined columns null)."""

    def __init__(self, dataset: str, files: Sequence[Path], keyed: Mapping[str, KeyedTable] | None = None) -> None:
        try:
            built = build_files(files, dataset, FILE_VERSION)
        except LoadFailure as failure:  # a ValueError: the CLI reports it as input it cannot use
            raise RangesError(f"the ranges of {dataset!r} cannot be loaded: {failure}") from None
        read, flat = built.read, built.flat
        aliases = tuple(sorted(read.aliases))
        self.dataset, self.keyed_tables = dataset, dict(keyed or {})
        self._info = VersionInfo(
            dataset,
            FILE_VERSION,
            read.columns,
            flat.directories,
            True,
            tuple(map(parse_alias, aliases)),
            keyed_joins=built.settings.keyed_joins,
        )
        self._table = VersionTable.of_build(flat.families, flat.pieces, read.columns, aliases)
        self.rows = read.rows

    def _check(self, dataset: str) -> None:
        if dataset != self.dataset and dataset not in self.keyed_tables:
            raise UnknownDataset(f"no dataset named {dataset!r}: the ranges given are {self.dataset!r}")

    def live(self, dataset: str) -> LivePointer:
        self._check(dataset)
        return LivePointer(dataset, FILE_VERSION, 0.0)

    def at(self, dataset: str, instant: float) -> LivePointer:
        self._check(dataset)
        if instant < 0:
            raise NoVersionAt(f"dataset {dataset!r} had no version before 1970")
        return self.live(dataset)

    def timeline(self, dataset: str) -> Timeline:
        self._check(dataset)
        return Timeline([Event(0.0, FILE_VERSION)])

    def info(self, pointer: LivePointer) -> VersionInfo:
        self._check(pointer.dataset)
        keyed = self.keyed_tables.get(pointer.dataset)
        if keyed is not None:
            return VersionInfo(pointer.dataset, FILE_VERSION, keyed.columns, {}, True, keyed=keyed.key)
        return self._info

    def table(self, info: VersionInfo) -> VersionTable:
        if info.dataset != self.dataset:
            raise UnknownDataset(f"dataset {info.dataset!r} is a keyed dataset: it holds keys, not ranges")
        return self._table

    def keyed(self, info: VersionInfo) -> KeyedTable:
        self._check(info.dataset)
        return self.keyed_tables[info.dataset]


def keyed_file_tables(given: Mapping[str, Sequence[Path]]) -> dict[str, KeyedTable]:
    """Keyed datasets from local files (each a keyed folder's objects, its ``_settings.json`` among them), read with
    the loader's recipe (``loading.local_files.keyed_files``); ``RangesError`` when a load would refuse them."""
    tables: dict[str, KeyedTable] = {}
    for dataset, files in given.items():
        try:
            read = keyed_files(files, dataset, FILE_VERSION)
        except LoadFailure as failure:
            raise RangesError(f"the keyed dataset {dataset!r} cannot be loaded: {failure}") from None
        if read is None:
            raise RangesError(f"{dataset!r} is no keyed dataset: give a _settings.json naming its key column")
        tables[dataset] = read[0].table
    return tables


class TableCache:
    """The last ``size`` table files read, by dataset and version (a version's never changes): kept between the jobs
    of one process."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self.tables: dict[tuple[str, int], VersionTable] = {}

    def get(self, info: VersionInfo, read: Callable[[], VersionTable]) -> VersionTable:
        key = (info.dataset, info.version)
        table = self.tables.pop(key, None) or read()
        self.tables[key] = table  # the most recent last
        while len(self.tables) > self.size:
            del self.tables[next(iter(self.tables))]
        return table


class ServiceSource:
    """The service's datasets: ``history`` is the lookup function's (``reading.past.History``), ``read`` the bucket's
    objects (None: no such object), ``kept`` the table files kept from earlier jobs."""

    def __init__(
        self,
        history: History,
        read: Callable[[str], bytes | None],
        kept: TableCache | None = None,
        keyed: KeyedTables | None = None,
    ) -> None:
        self.history, self.read, self.kept = history, read, kept
        self.keyed_tables = keyed or KeyedTables(lambda: _Objects(read), CacheLimits().keyed_bytes)

    def live(self, dataset: str) -> LivePointer:
        return self.history.lookup.live_pointer(dataset)

    def at(self, dataset: str, instant: float) -> LivePointer:
        return self.history.at(dataset, instant)

    def timeline(self, dataset: str) -> Timeline:
        return self.history.timeline(dataset)

    def info(self, pointer: LivePointer) -> VersionInfo:
        return self.history.lookup.version_of(pointer)

    def table(self, info: VersionInfo) -> VersionTable:
        if self.kept is not None:
            return self.kept.get(info, lambda: self._read(info))
        return self._read(info)

    def keyed(self, info: VersionInfo) -> KeyedTable:
        return self.keyed_tables.table(info)

    def _read(self, info: VersionInfo) -> VersionTable:
        body = self.read(table_key(info.dataset, info.version))
        if body is None:
            raise UnknownDataset(
                f"version {info.version} of dataset {info.dataset!r} has no table file (it was built before "
                "enrichment existed): load the folder again to build one"
            )
        try:
            return VersionTable.read(body)
        except TableError as error:
            raise UnknownDataset(f"the table file of version {info.version} of {info.dataset!r}: {error}") from None


class _Objects:
    """``read`` as the bucket keyed tables are read from."""

    def __init__(self, read: Callable[[str], bytes | None]) -> None:
        self.read = read

    def object_if_any(self, key: str, limit: int) -> bytes | None:  # noqa: ARG002 - ``read`` bounds its own
        return self.read(key)


class PinnedSource:
    """``source`` with each dataset's live version fixed to the one ``pins`` names (version, live since; None: none
    was live): a job in the bucket answers every part from the versions live when it was planned, whatever goes live
    meanwhile."""

    def __init__(self, source: VersionSource, pins: dict[str, tuple[int | None, float | None]]) -> None:
        self.source, self.pins = source, pins

    def live(self, dataset: str) -> LivePointer:
        if dataset not in self.pins:
            return self.source.live(dataset)
        version, since = self.pins[dataset]
        if version is None:
            raise UnknownDataset(f"no dataset named {dataset!r} was live when the job was planned")
        return LivePointer(dataset, version, since)

    def at(self, dataset: str, instant: float) -> LivePointer:
        return self.source.at(dataset, instant)

    def timeline(self, dataset: str) -> Timeline:
        return self.source.timeline(dataset)

    def info(self, pointer: LivePointer) -> VersionInfo:
        try:
            return self.source.info(pointer)
        except UnknownDataset as error:
            raise self._gone("dataset", pointer.dataset, pointer.version, error) from None

    def table(self, info: VersionInfo) -> VersionTable:
        return self.source.table(info)

    def keyed(self, info: VersionInfo) -> KeyedTable:
        """A pinned keyed version that is gone fails the part (the parts before it joined it), as a range version
        does; a table not joined for another reason (larger than KEYED_CACHE_BYTES) is null in every part alike."""
        try:
            return self.source.keyed(info)
        except TableMissing as error:
            raise self._gone("keyed dataset", info.dataset, info.version, error) from None

    def _gone(self, kind: str, dataset: str, version: int, error: ServiceError) -> Exception:
        if self.pins.get(dataset, (None, None))[0] != version:
            return error
        return JobError(
            f"version {version} of {kind} {dataset!r}, pinned when the job was planned, can no longer be read "
            f"({error.message}): submit the job again"
        )
