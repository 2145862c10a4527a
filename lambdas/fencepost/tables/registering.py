"""The tables function's work, one message at a time (``{"dataset": ..., "version": ...}``, sent as a version goes
live, on a rollback or roll-forward, and by ``GET /datasets/{name}/export?format=parquet``):

1. write the version's Parquet file (``tables.parquet_table``), and the live version's if it is missing, unless it is
   written: streamed to a file under the scratch folder (``/tmp`` on Lambda), uploaded (multipart), then its
   columns (``core.storage.objects.parquet_columns_key``), whose presence says the file is whole;
2. make the dataset's Glue tables (``tables.catalog``) match its state read now (consistent) from the table: the
   kept versions whose file is written, the live one, and when each of them was live (a small Parquet file of its
   periods, written again each time).

A message for a retired dataset (sent when its folder is emptied) drops its tables and its history file.

Whatever the message and the order messages arrive in, the catalog ends at the dataset's live version: a message
for an old version writes that version's file and registers it among the versions, never moves ``<name>`` back.
One writer a file: the export's marker (``core.versions.exports``) is taken over first; a file another writer holds
is retried later (``Busy``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from fencepost.core.storage.objects import history_key, parquet_columns_key, parquet_key, table_key
from fencepost.core.versions.exports import FORMATS, WRITING, Marker, marker_object, may_write
from fencepost.core.versions.history import Period, Timeline
from fencepost.enrichment.table import TableError, VersionTable
from fencepost.errors import InvalidRequest, check_dataset_name
from fencepost.model import DatasetRecord, VersionInfo
from fencepost.tables import catalog
from fencepost.tables.schema import LayoutError

PARQUET: Final = FORMATS["parquet"]
SETTLE_ROUNDS: Final = 3


class MessageError(ValueError):
    """A message that is not ``{"dataset": <name>, "version": <positive integer>}``."""


class Busy(RuntimeError):
    """Another writer holds the version's file: the message is delivered again later."""


class DatasetStates(Protocol):
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def timeline(self, name: str, *, consistent: bool = False) -> Timeline: ...


class StoredVersions(Protocol):
    def get(self, dataset: str, version: int) -> VersionInfo | None: ...


class TableObjects(Protocol):
    """The bucket, as the tables function uses it."""

    def read(self, key: str) -> bytes | None: ...
    def exists(self, key: str) -> bool: ...
    def upload(self, key: str, path: Path, content_type: str) -> None: ...
    def put_bytes(self, key: str, body: bytes) -> None: ...
    def marker(self, key: str) -> Marker | None: ...
    def claim(self, key: str, state: str, *, replacing: str | None) -> bool: ...
    def delete_files(self, keys: list[str]) -> None: ...


class Catalog(Protocol):
    """The Glue Data Catalog's database of the datasets' tables."""

    def parameters(self, name: str) -> dict[str, str] | None:
        """A table's parameters (``catalog.OWNER`` names its dataset); None: no such table."""
        ...

    def put(self, table: dict[str, Any]) -> None:
        """Create the table, or replace its definition."""
        ...

    def delete(self, name: str) -> None:
        """Drop the table (none: nothing to do)."""
        ...


class Log(Protocol):
    def info(self, msg: object, *args: Any, **kwargs: Any) -> None: ...
    def warning(self, msg: object, *args: Any, **kwargs: Any) -> None: ...


def parse(body: str) -> tuple[str, int]:
    """The dataset and version a message names; ``MessageError`` says what is wrong with one that names none."""
    try:
        document = json.loads(body)
    except ValueError:
        raise MessageError('a tables message is JSON: {"dataset": <name>, "version": <n>}') from None
    if not isinstance(document, dict):
        raise MessageError("a tables message is a JSON object with dataset and version")
    dataset, version = document.get("dataset"), document.get("version")
    if not isinstance(dataset, str):
        raise MessageError("a tables message names its dataset (text)")
    try:
        check_dataset_name(dataset)
    except InvalidRequest as error:
        raise MessageError(str(error)) from None
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise MessageError("a tables message names its version (a positive integer)")
    return dataset, version


def kept_versions(record: DatasetRecord, timeline: Timeline) -> list[int]:
    """The versions kept now: live, the rollback target, and those in the history not yet deleted."""
    kept = {version for version in (record.live, record.previous) if version is not None}
    kept |= {version for version in timeline.periods() if timeline.kept(version)}
    return sorted(kept)


@dataclass(kw_only=True, frozen=True)
class TablesPublisher:
    datasets: DatasetStates
    versions: StoredVersions
    objects: TableObjects
    catalog: Catalog
    log: Log
    bucket: str
    scratch: Path
    clock: Any = time.time

    def on_message(self, body: str) -> None:
        dataset, version = parse(body)
        record = self.datasets.get(dataset, consistent=True)
        if record is not None and record.retired:
            self.drop(dataset)
            return
        if record is None or record.live is None:
            self.log.info("a dataset that is not served: no table", extra={"dataset": dataset, "version": version})
            return
        if (info := self.versions.get(dataset, record.live)) is not None and info.keyed is not None:
            self.log.info("a keyed dataset: no tables (it holds no ranges)", extra=_named(dataset, version))
            return
        kept = kept_versions(record, self.datasets.timeline(dataset, consistent=True))
        if version not in kept:
            self.log.info("a version no longer kept: not written", extra={"dataset": dataset, "version": version})
        for wanted in sorted({version, record.live} & set(kept)):
            self.write(dataset, wanted)
        self.settle(dataset, record)

    def drop(self, dataset: str) -> None:
        """A retired dataset: its Glue tables dropped (those it owns) and its history file deleted, as GET /lookup
        stops answering it. Its versions' Parquet files go with the versions (``core.versions.exports.kept_keys``)."""
        if (owned := self._owned(dataset)) is None:
            return
        for table in owned:
            self.catalog.delete(table)
        self.objects.delete_files([history_key(dataset)])
        self.log.info("tables dropped: the dataset is retired", extra={"dataset": dataset, "tables": owned})

    def _owned(self, dataset: str) -> list[str] | None:
        """The dataset's three table names that exist, or None (logged) when one of them is another dataset's."""
        name = catalog.glue_name(dataset)
        owned = []
        for table in (name, name + catalog.VERSIONS_SUFFIX, name + catalog.HISTORY_SUFFIX):
            parameters = self.catalog.parameters(table)
            owner = None if parameters is None else parameters.get(catalog.OWNER, "(a table of no dataset)")
            if owner not in (None, dataset):
                self.log.warning(
                    f"Glue table {table} is dataset {owner!r}'s: dataset {dataset!r} maps to the same name "
                    "(lowercase, '.' and '-' as '_'); left alone",
                    extra={"dataset": dataset},
                )
                return None
            if owner is not None:
                owned.append(table)
        return owned

    def settle(self, dataset: str, record: DatasetRecord) -> None:
        """Register the dataset as it stands, then read it again: a rollback or another delivery's registration may
        have come between the read and the writes, so the tables are registered again until a read after them finds
        the state they were made from (at most ``SETTLE_ROUNDS`` times)."""
        for _ in range(SETTLE_ROUNDS):
            current = self.datasets.get(dataset, consistent=True) or record
            timeline = self.datasets.timeline(dataset, consistent=True)
            self.register(dataset, current, kept_versions(current, timeline), timeline)
            if self._state(dataset) in (None, (current.live, current.previous, timeline.periods())):
                return
        self.log.warning("the dataset kept changing while its tables were registered", extra={"dataset": dataset})

    def _state(self, dataset: str) -> tuple[int | None, int | None, dict[int, list[Period]]] | None:
        found = self.datasets.get(dataset, consistent=True)
        if found is None:
            return None
        return found.live, found.previous, self.datasets.timeline(dataset, consistent=True).periods()

    def columns(self, dataset: str, version: int) -> list[tuple[str, str]] | None:
        """A written version's columns (name, type); None while its file is not written."""
        body = self.objects.read(parquet_columns_key(dataset, version))
        return None if body is None else [(name, kind) for name, kind in json.loads(body)]

    def write(self, dataset: str, version: int) -> None:
        """Write the version's Parquet file unless it is written."""
        if self.objects.exists(parquet_columns_key(dataset, version)):
            return
        marker_key = marker_object(dataset, version, PARQUET)
        marker = self.objects.marker(marker_key)
        if not may_write(marker, self.clock()) or not self.objects.claim(
            marker_key, WRITING, replacing=None if marker is None else marker.etag
        ):
            raise Busy(f"version {version} of {dataset!r} is being written by another delivery")
        try:
            self._write(dataset, version)
        finally:
            self.objects.delete_files([marker_key])

    def _write(self, dataset: str, version: int) -> None:
        from fencepost.tables.parquet_table import write_table  # pyarrow: this function's asset only

        info = self.versions.get(dataset, version)
        body = self.objects.read(table_key(dataset, version))
        if info is None or body is None:
            self.log.warning("a version without its table file: not written", extra=_named(dataset, version))
            return
        began = time.perf_counter()
        path = self.scratch / f"{dataset}-{version}.parquet"
        try:
            written = write_table(VersionTable.read(body), path, numeric=info.numeric)
            columns = _file_columns(path)
            self.objects.upload(parquet_key(dataset, version), path, PARQUET.content_type)
        except (LayoutError, TableError) as error:
            self.log.warning(f"version not written as Parquet: {error}", extra=_named(dataset, version))
            return
        finally:
            path.unlink(missing_ok=True)
        self.objects.put_bytes(parquet_columns_key(dataset, version), json.dumps(columns).encode())
        extra = {**_named(dataset, version), "rows": written.rows, "seconds": round(time.perf_counter() - began, 2)}
        self.log.info("version written as Parquet", extra=extra)

    def register(self, dataset: str, record: DatasetRecord, kept: Sequence[int], timeline: Timeline) -> None:
        """The Glue tables as the dataset stands: its written versions, the live one, and their periods live."""
        if self._owned(dataset) is None:
            return
        written = {version: self.columns(dataset, version) for version in kept}
        versions = [version for version, columns in written.items() if columns is not None]
        live = record.live
        columns = written.get(live) if live is not None else None
        if columns is None:  # the live version is not written (its file could not be): the newest written one's
            columns = written[versions[-1]] if versions else None
        if columns is None:
            return
        uniform = all(written[version] == columns for version in versions)  # one column list: read by position
        if not uniform and (left := catalog.left_out(columns)):
            extra = {"columns": left[:20]}
            self.log.warning("columns left out of <name>_versions (not Glue names; the versions differ)", extra=extra)
        self.catalog.put(catalog.versions_table(dataset, self.bucket, columns, versions, live, uniform=uniform))
        self.objects.put_bytes(history_key(dataset), history_parquet(timeline, versions))
        self.catalog.put(catalog.history_table(dataset, self.bucket))
        if live is not None and written.get(live) is not None:
            self.catalog.put(catalog.live_table(dataset, self.bucket, columns, live))
            self.log.info("tables registered", extra={"dataset": dataset, "live": live, "versions": versions})


def history_rows(timeline: Timeline, versions: Sequence[int]) -> list[tuple[int, float, float | None]]:
    """Each period ``versions`` were live: (version, from, until: None while live), in time order."""
    periods = timeline.periods()
    rows = [(version, p.start, p.end) for version in versions for p in periods.get(version, [])]
    return sorted(rows, key=lambda row: row[1])


def history_parquet(timeline: Timeline, versions: Sequence[int]) -> bytes:
    """``history_rows`` as a Parquet file of ``catalog.HISTORY_COLUMNS`` (instants in microseconds, UTC)."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = history_rows(timeline, versions)
    instant = pa.timestamp("us", tz="UTC")
    table = pa.table(
        {
            "version": pa.array([row[0] for row in rows], pa.int64()),
            "live_from": pa.array([round(row[1] * 1e6) for row in rows], pa.int64()).cast(instant),
            "live_until": pa.array([None if row[2] is None else round(row[2] * 1e6) for row in rows], pa.int64()).cast(
                instant
            ),
        }
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _named(dataset: str, version: int) -> dict[str, Any]:
    return {"dataset": dataset, "version": version}


def _file_columns(path: Path) -> list[tuple[str, str]]:
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    return [(field.name, str(field.type)) for field in schema]
