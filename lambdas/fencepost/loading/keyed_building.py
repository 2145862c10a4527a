"""A keyed dataset's build (``core.keyed``): its folder's objects read into one table of keys, the gates measured on
keys against the live keyed version, the table written whole to ``_kept/<dataset>/<build>.keys.gz``, then the build
record, the version's header (no directory: a keyed version has no ranges) and the live switch, as a range build of
no chunks goes live (``loading.going_live``). Nothing is written to the ranges' partitions."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from fencepost.core.folders.gates import Refusal
from fencepost.core.folders.limits import LimitError
from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.formats.base import FileError
from fencepost.core.formats.problems import for_record
from fencepost.core.keyed.key_files import read_key_object
from fencepost.core.keyed.key_gates import KeyChanges, key_changes, key_refusal
from fencepost.core.keyed.key_rows import KeyFileError, KeyRows
from fencepost.core.keyed.keyed_table import KeyedError, KeyedTable
from fencepost.core.space.addresses import FAMILIES
from fencepost.core.storage.keys import Directory
from fencepost.core.storage.objects import is_fetched, keys_key, report_key
from fencepost.core.versions.data_dates import latest_day, version_date
from fencepost.loading.accepting import acceptance
from fencepost.loading.failing import Failures
from fencepost.loading.going_live import GoLive
from fencepost.loading.ports import Clock, LoadProgress, Telemetry
from fencepost.loading.progress import LoadFailure, Read
from fencepost.loading.publishing import ACCEPTED, BuildStarts, VersionWrites
from fencepost.loading.reading import Reader, check_listable, check_storable
from fencepost.loading.recipe import fetched_dates
from fencepost.loading.reports import Reports, iso
from fencepost.model import (
    RECORD_PROBLEMS,
    BuildRecord,
    DatasetRecord,
    DiffSummary,
    ObjectRef,
    Phase,
    VersionHeader,
    VersionInfo,
)


class KeyFiles(Protocol):
    def put_bytes(self, key: str, body: bytes) -> None: ...
    def object_if_any(self, key: str, limit: int) -> bytes | None: ...


class KeyedVersions(VersionWrites, Protocol):
    def get(self, dataset: str, version: int) -> VersionInfo | None: ...


@dataclass(frozen=True, slots=True)
class KeyedRead:
    """A keyed folder read: its table, and what reading it met (rows, problems, the data's dates)."""

    table: KeyedTable
    read: Read


def read_keyed(
    reader: Reader, dataset: str, build: int, objects: list[ObjectRef], settings: FolderSettings, *, deadline: float
) -> KeyedRead:
    """The folder's objects as one table of keys, checked with its settings (the loader's limits as the folder
    lowers them, invalid rows within ``max_invalid_rows``). Raises ``LoadFailure``."""
    assert settings.key is not None  # (a keyed folder)
    try:
        read = Read(reader.limits.lowered_for(settings.limits))
    except LimitError as error:
        raise LoadFailure(str(error), object_key=settings.limits.source) from None
    check_listable(objects)
    limits = read.limits
    # Held whole, a table takes more than its text (a cell is an object): no more memory than a build may read bytes
    max_rows, max_bytes, named = limits.max_keyed_rows, limits.max_build_bytes, limits.source("max_build_bytes")
    too_large = (
        f"the table would take more than {max_bytes:,} bytes once held ({named} bounds a keyed table's memory too): "
        "use fewer or narrower columns"
    )
    rows = KeyRows(settings.key, settings.key_form, max_rows, limits.too_many_keys(), max_bytes, too_large)
    for obj in objects:
        try:
            lines = reader.watched(dataset, build, obj.key, read=read, deadline=deadline)
            read.rows += read_key_object(obj.key, lines, rows, read.problems)
        except FileError as error:
            raise LoadFailure(error.reason, object_key=obj.key, line=error.line, earlier=read.problems.kept) from None
        except KeyFileError as error:
            where = error.object_key or obj.key
            raise LoadFailure(error.reason, object_key=where, line=error.line, earlier=read.problems.kept) from None
    table = rows.table()
    read.columns = (table.key, *table.columns)
    check_storable(read.columns, objects[0].key, read.limits)
    if read.problems.count > settings.max_invalid_rows:
        reason = f"{read.problems.count} invalid rows; the folder's settings allow {settings.max_invalid_rows}"
        raise LoadFailure(reason, earlier=read.problems.kept, total=read.problems.total + 1, rows=read.rows)
    read.last_modified = fetched_dates(reader.files, dataset, objects)
    return KeyedRead(table, read)


def _summary(changes: KeyChanges | None, baseline: int | None, accepted: bool) -> DiffSummary:
    if changes is None:
        return DiffSummary(note="a first keyed version: nothing to compare with")
    note = ACCEPTED if accepted else "keys compared with the live keyed version"
    return DiffSummary(baseline, note, changes.added, changes.removed, changes.changed, changes.unchanged)


Rows = dict[str, tuple[str, ...]]  # a keyed table's values by key


@dataclass(kw_only=True, slots=True)
class KeyedBuilder:
    reader: Reader
    files: KeyFiles
    versions: KeyedVersions
    builds: BuildStarts
    datasets: LoadProgress
    going_live: GoLive
    failures: Failures
    reports: Reports
    telemetry: Telemetry
    clock: Clock

    def build(
        self,
        dataset: str,
        build: int,
        objects: list[ObjectRef],
        settings: FolderSettings,
        *,
        record: DatasetRecord,
        sources: str,
        started: float,
        deadline: float,
    ) -> bool:
        """Read, gate and publish a keyed version of ``objects`` (the folder's ``sources``); the gates compare it with
        the live version of the dataset's ``record``. False when the load failed (reported, the live version serving
        on)."""
        baseline = None if record.retired else record.live
        accepted = record.accepted == acceptance(record.planned, sources)  # past the gates, once
        try:
            keyed = read_keyed(self.reader, dataset, build, objects, settings, deadline=deadline)
        except LoadFailure as failure:
            fail = self.failures.fail_load
            fail(dataset, build, failure.problems, failure.total, rows=failure.rows, objects=objects, started=started)
            return False
        table, read = keyed.table, keyed.read
        live, unreadable = self._live_rows(dataset, baseline)
        changes = None if live is None else key_changes(live, table.rows)
        summary = _summary(changes, baseline, accepted)
        gates = settings.gates.unattended() if any(is_fetched(o.key) for o in objects) else settings.gates
        refusal = None if accepted else unreadable or key_refusal(gates, len(table.rows), changes, baseline)
        if refusal is not None:
            self.failures.refuse(dataset, build, refusal, summary, read, gates=gates, objects=objects, started=started)
            return False
        self.files.put_bytes(keys_key(dataset, build), table.encode())
        self._record(dataset, build, keyed, objects=objects, settings=settings, summary=summary, started=started)
        writing = self.builds.start_writing(dataset, build, 0)  # no chunks: complete as soon as it is WRITING
        extra = {"dataset": dataset, "build": build, "keys": len(table.rows), "rows": read.rows}
        self.telemetry.logger.info("keyed build planned", extra=extra)
        if writing is not None and writing.complete:
            self.going_live.finalize(dataset, build)
        return True

    def _live_rows(self, dataset: str, baseline: int | None) -> tuple[Rows | None, Refusal | None]:
        """The rows of the live keyed version the gates compare with; None when there is none (a first version, or a
        live version of ranges). A live keyed table that cannot be read is a refusal of its own: the gates could not
        see what the build removes (a truncated feed would go live); a person may accept the build once."""
        if baseline is None:
            return None, None
        info = self.versions.get(dataset, baseline)
        if info is None or info.keyed is None:
            return None, None
        try:
            data = self.files.object_if_any(keys_key(dataset, baseline), self.reader.limits.max_object_bytes)
            if data is None:
                raise KeyedError(f"{keys_key(dataset, baseline)} is missing")
            return dict(KeyedTable.decode(data).rows), None
        except (FileError, KeyedError) as error:
            extra = {"dataset": dataset, "version": baseline, "reason": str(error)}
            self.telemetry.logger.warning("the live keyed table could not be read: no comparison", extra=extra)
            reason = (
                f"the table of live version {baseline} cannot be read ({error}), so the gates cannot compare this "
                "build with it: accept the folder once (make fetch DATASET=<name> ACCEPT=1) to build it anyway"
            )
            return None, Refusal("max_removed_percent", reason)

    def _record(
        self,
        dataset: str,
        build: int,
        keyed: KeyedRead,
        *,
        objects: list[ObjectRef],
        settings: FolderSettings,
        summary: DiffSummary,
        started: float,
    ) -> None:
        """The build record, the version's header (its info: no directory), the report and the dataset's progress."""
        table, read = keyed.table, keyed.read
        created, key = iso(self.clock()), report_key(dataset, build)
        own_date = version_date([o.key for o in objects], last_modified=read.last_modified, latest=latest_day(created))
        header = VersionHeader(read.columns, len(table.rows), 0, objects, created, settings_digest(settings))
        header = replace(header, keyed=table.key, data_date=own_date)
        directories = {family: Directory(family) for family in FAMILIES}
        info = VersionInfo(dataset, build, read.columns, directories, created_at=created, keyed=table.key)
        self.builds.put(
            BuildRecord(
                dataset,
                build,
                ranges=header.ranges,
                objects=objects,
                report=key,
                started=started,
                settings=header.settings,
                built_at=created,
                data_date=own_date,
            )
        )
        self.versions.put(info, header)
        rows, problems = read.rows, read.problems
        write = self.reports.write
        write(dataset, build, "WRITING", objects=objects, rows=rows, items=0, problems=problems, started=started)
        kept = for_record(problems.kept, RECORD_PROBLEMS)
        self.datasets.update_load(
            dataset,
            build,
            self.clock(),
            phase=Phase.WRITING,
            rows_read=rows,
            items=0,
            problems=kept,
            report=key,
            diff=summary,
        )
