"""Exporting a version as a file (``core.versions.exports``): asked for by ``GET /datasets/{name}/export``, written once
per version and format into the bucket (``core.storage.objects.export_key``), and deleted with the version.

Parquet is written by the tables function (``handlers/tables.py``), not here: a request for it is passed on to its
queue once the version is kept and live.

A folder's ``"exports"`` asks for them as each version is built: the message waits (sent again every
``WAIT_FOR_LIVE`` seconds) until the version is live, and is dropped if it never goes live. The version's pieces are
read from the table in address order, a page at a time. CSV and CIDR exports are streamed to a multipart upload,
never more than a part held; a MaxMind DB is built in memory (its search tree and records) and written whole, in a
GeoLite2 profile's shape for ``mmdb:<profile>`` (read with the ``mmdb_profile_columns`` the version was built with;
the ranges left out are logged). The marker beside the export (``core.versions.exports.Marker``) is taken over by one
writer (a conditional write: of several deliveries of the same request, one writes), and deleted once the export is
written; a writer that dies leaves a marker that is asked again once it is older than ``STALE_MARKER_SECONDS``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Protocol

from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.formats.base import FileError
from fencepost.core.space.addresses import V6
from fencepost.core.storage.objects import FolderError, building_key, export_key
from fencepost.core.versions.exports import (
    EXPORTABLE,
    WRITING,
    ExportFormat,
    Marker,
    cidr_lines,
    csv_lines,
    encoded,
    may_write,
)
from fencepost.core.versions.history import Timeline
from fencepost.core.versions.mmdb_profiles import ProfileError, profile_named
from fencepost.loading.delivery import Delivery
from fencepost.loading.messages import ExportVersion
from fencepost.loading.ports import Clock, KeptFiles, Outbox, TableRequests, Telemetry
from fencepost.model import DatasetRecord, LoadStatus, VersionInfo

PART_BYTES: Final = 8 << 20  # a multipart upload's part (S3 takes 5 MiB and more)
WAIT_FOR_LIVE: Final = 30  # seconds before asking again for the export of a version still loading


class ExportFiles(KeptFiles, Protocol):
    def modified(self, key: str) -> float | None:
        """When the object was last written (epoch seconds); None when there is none."""
        ...

    def marker(self, key: str) -> Marker | None: ...
    def claim(self, key: str, state: str, *, replacing: str | None) -> bool: ...
    def settings(self, dataset: str) -> FolderSettings: ...

    def put_bytes(self, key: str, body: bytes) -> None: ...
    def put_parts(self, key: str, parts: Iterable[bytes], content_type: str) -> None: ...


class ExportedVersions(Protocol):
    def get(self, dataset: str, version: int) -> VersionInfo | None: ...
    def pieces(self, info: VersionInfo) -> Iterator[tuple[int, int, int, list[str]]]: ...


class ServedVersions(Protocol):
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def timeline(self, name: str, *, consistent: bool = False) -> Timeline: ...


@dataclass(kw_only=True, frozen=True, slots=True)
class Exporter:
    versions: ExportedVersions
    datasets: ServedVersions
    files: ExportFiles
    outbox: Outbox
    telemetry: Telemetry
    clock: Clock
    tables: TableRequests | None = None

    def on_export(self, message: ExportVersion, delivery: Delivery) -> None:  # noqa: ARG002 - one invocation
        dataset, version = message.dataset, message.version
        chosen = EXPORTABLE.get(message.format)
        log = self.telemetry.logger
        if chosen is None:
            log.warning("an export of an unknown format was dropped", extra={"format": message.format[:20]})
            return
        if not self._served(message):
            return
        if chosen.name == "parquet":
            self._pass_on(message)
            return
        key = export_key(dataset, version, chosen.extension)
        marker = self.files.marker(building_key(key))
        if self.files.modified(key) is not None or not may_write(marker, self.clock()):
            return  # written, or being written
        info = self.versions.get(dataset, version)
        if info is None or info.keyed is not None:
            told = "a keyed version holds no ranges to export" if info else "a version no longer kept"
            log.info(f"export refused: {told}; nothing written", extra={"dataset": dataset, "version": version})
            self.files.delete_files([building_key(key)])  # nobody will write it: a request may ask again
            return
        if not self.files.claim(building_key(key), WRITING, replacing=None if marker is None else marker.etag):
            return  # another delivery took it over first
        self._write(info, chosen, key)

    def _write(self, info: VersionInfo, chosen: ExportFormat, key: str) -> None:
        """Write the export and delete its marker (a profile the version's columns cannot answer writes nothing)."""
        began = time.perf_counter()
        pieces = self.versions.pieces(info)
        written = True
        if chosen.profile is not None:
            data = self._profiled(info, pieces, chosen.profile)
            written = data is not None
            if data is not None:
                self.files.put_bytes(key, data)
        elif chosen.name == "mmdb":
            self.files.put_bytes(key, self._mmdb(info, pieces))
        else:
            raw = self._raw(info.dataset)
            lines = (csv_lines if chosen.name == "csv" else cidr_lines)(info.columns, pieces, raw=raw)
            self.files.put_parts(key, encoded(lines, PART_BYTES), chosen.content_type)
        self.files.delete_files([building_key(key)])  # written, or refused: a request may ask again
        if written:
            seconds = round(time.perf_counter() - began, 2)
            extra = {"dataset": info.dataset, "version": info.version, "format": chosen.name, "seconds": seconds}
            self.telemetry.logger.info("version exported", extra=extra)

    def _served(self, message: ExportVersion) -> bool:
        """Whether the version is kept (live, previous, or in its ``retain_days``); one still loading is asked for
        again later."""
        record = self.datasets.get(message.dataset, consistent=True)
        if record is not None and message.version in (record.live, record.previous):
            return True
        timeline = self.datasets.timeline(message.dataset, consistent=True)
        if timeline.kept(message.version):
            return True
        if record is not None and record.load.version == message.version and record.status == LoadStatus.LOADING:
            self.outbox.send(message, WAIT_FOR_LIVE)
        else:  # never written: a request may ask again at once
            extension = EXPORTABLE[message.format].extension
            self.files.delete_files([building_key(export_key(message.dataset, message.version, extension))])
        return False

    def _pass_on(self, message: ExportVersion) -> None:
        """A Parquet export, asked of the tables function (which writes it, or finds it written)."""
        if self.tables is None:
            self.telemetry.logger.warning(
                "a Parquet export was asked for, and no tables function is set up (TABLES_QUEUE_URL): dropped",
                extra={"dataset": message.dataset, "version": message.version},
            )
            self.files.delete_files([building_key(export_key(message.dataset, message.version, "parquet"))])
            return
        self.tables(message.dataset, message.version)

    def _raw(self, dataset: str) -> bool:
        """Whether the folder asks for cells as written (``export_raw_cells``); unreadable settings ask for none."""
        try:
            return self.files.settings(dataset).export_raw_cells
        except (FolderError, FileError):
            return False

    def _mmdb(self, info: VersionInfo, pieces: Iterator[tuple[int, int, int, list[str]]]) -> bytes:
        from fencepost.core.versions.mmdb_export import mmdb_bytes  # mmdb-writer and netaddr: only exports need them

        epoch, has_ipv6 = self._epoch(info), _has_ipv6(info)
        return mmdb_bytes(
            info.dataset, info.columns, pieces, has_ipv6=has_ipv6, build_epoch=epoch, numeric=info.numeric
        )

    def _profiled(
        self, info: VersionInfo, pieces: Iterator[tuple[int, int, int, list[str]]], name: str
    ) -> bytes | None:
        """A MaxMind DB in a GeoLite2 profile's shape, read with the mapping the version was built with; None for a
        version whose columns cannot answer the profile (the route refuses it before asking)."""
        from fencepost.core.versions.mmdb_export import profile_mmdb

        profile, log = profile_named(name), self.telemetry.logger
        extra = {"dataset": info.dataset, "version": info.version, "profile": name}
        try:
            written = profile_mmdb(
                *(info.dataset, info.version, info.columns, pieces),
                profile=profile,
                mapping=info.profile_columns,
                has_ipv6=_has_ipv6(info),
                build_epoch=self._epoch(info),
            )
        except ProfileError as error:
            log.warning(f"export refused: {error}", extra=extra)
            return None
        if written.skipped:
            log.info(f"ranges left out of the export: {written.skipped}", extra=extra)
        return written.data

    def _epoch(self, info: VersionInfo) -> int:
        """The version's build time (epoch seconds): the file's ``build_epoch``."""
        return int(datetime.fromisoformat(info.created_at).timestamp()) if info.created_at else int(self.clock())


def _has_ipv6(info: VersionInfo) -> bool:
    return bool(info.directories[V6].partitions) if V6 in info.directories else False
