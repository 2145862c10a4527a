"""Publishing a build: flatten the rows, write the version's directory, and hand the pieces to the writers.

Pieces are shuffled across partitions and cut into chunk messages for the data queue, sent as they are encoded
(the build is PLANNING meanwhile: writers may already write them); the build turns WRITING once their number is
known, and whichever comes last finalizes it. A build of one chunk or less is written from here, with no
round trip through the data queue, so a small dataset never waits behind another's chunks. A version whose
directory would span more partitions than the limit allows fails before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.formats.problems import for_record
from fencepost.core.keyed.join_spec import stored_joins
from fencepost.core.space.aliases import parse_alias
from fencepost.core.storage import chunks
from fencepost.core.storage.keys import Directory
from fencepost.core.storage.objects import is_fetched, report_key
from fencepost.core.versions.data_dates import latest_day, version_date
from fencepost.core.versions.mmdb_profiles import stored_map
from fencepost.errors import StoreUnavailable
from fencepost.loading.comparing import Comparer
from fencepost.loading.failing import Failures
from fencepost.loading.going_live import GoLive
from fencepost.loading.indexing import Indexer
from fencepost.loading.messages import ExportVersion, WriteChunk
from fencepost.loading.ports import Clock, LoadProgress, Outbox, Telemetry
from fencepost.loading.reading import LoadFailure, Read
from fencepost.loading.recipe import flatten
from fencepost.loading.reports import Reports, iso
from fencepost.loading.writing import ChunkWriter
from fencepost.model import (
    RECORD_PROBLEMS,
    BuildRecord,
    DiffSummary,
    ObjectRef,
    Phase,
    Problem,
    VersionHeader,
    VersionInfo,
)

ACCEPTED = "accepted once past the folder's gates (the admin module's accept)"


def _header(
    read: Read, *, items: int, objects: list[ObjectRef], created: str, settings: str | None, folder: FolderSettings
) -> VersionHeader:
    """A version's header: what it was built from, how, and its data's own date (``core.versions.data_dates``)."""
    keys = [o.key for o in objects]
    own_date = version_date(
        keys,
        epochs=read.epochs,
        last_modified=read.last_modified,
        enddates=read.enddates,
        published=read.published,
        latest=latest_day(created),
    )
    aliases = tuple(sorted(read.aliases)) or None
    header = VersionHeader(read.columns, read.rows, items, objects, created, settings, True, aliases)
    joins = stored_joins(folder.keyed_joins)  # the keyed datasets joined into its answers (core.keyed.join_spec)
    indexed, numeric = folder.index or None, folder.numeric or None
    mapped = stored_map(folder.mmdb_profile_columns)  # what its GeoLite2 exports read (core.versions.mmdb_profiles)
    return replace(
        header, indexed=indexed, numeric=numeric, data_date=own_date, keyed_joins=joins, profile_columns=mapped
    )


def _build_record(
    dataset: str,
    build: int,
    header: VersionHeader,
    *,
    report: str,
    started: float,
    dated: str | None,
    diff: DiffSummary,
) -> BuildRecord:
    """A build's record, from its version's header: what the version holds and was built from, and its dates."""
    changed = None if diff.baseline is None else (diff.changed_percent_ipv4, diff.changed_percent_ipv6)
    return BuildRecord(
        dataset,
        build,
        ranges=header.ranges,
        items=header.items,
        objects=header.objects,
        report=report,
        started=started,
        settings=header.settings,
        dated=dated,
        changed=changed,
        built_at=header.created_at,
        data_date=header.data_date,
    )


class VersionWrites(Protocol):
    def put(self, info: VersionInfo, header: VersionHeader) -> None: ...


class BuildStarts(Protocol):
    def put(self, build: BuildRecord) -> None: ...
    def start_writing(self, dataset: str, build: int, chunks: int) -> BuildRecord | None: ...


@dataclass(kw_only=True, slots=True)
class Publisher:
    comparer: Comparer
    indexer: Indexer
    datasets: LoadProgress
    versions: VersionWrites
    builds: BuildStarts
    outbox: Outbox
    writer: ChunkWriter
    going_live: GoLive
    failures: Failures
    reports: Reports
    telemetry: Telemetry
    clock: Clock
    chunk_items: int

    def publish(
        self,
        dataset: str,
        build: int,
        objects: list[ObjectRef],
        read: Read,
        *,
        started: float,
        deadline: float,
        folder: FolderSettings | None = None,
        baseline: int | None = None,
        dated: str | None = None,
        accepted: bool = False,
    ) -> bool:
        """Flatten, compare with the ``baseline`` (live) version and apply the ``folder``'s gates, index the columns
        it names, then write the version (and ask for the exports it names, written once the version is live).
        ``dated``: the date of the dated folder it is built from (``loading.backfilling``); ``accepted``: a person
        accepted these sources past the gates, once (the admin module's ``accept``). False when it failed."""
        folder = folder or FolderSettings()
        try:
            flat = flatten(read, folder)
        except LoadFailure as failure:
            fail = self.failures.fail_load
            fail(dataset, build, failure.problems, failure.total, rows=failure.rows, objects=objects, started=started)
            return False
        families, pieces, directories, book = flat.families, flat.pieces, flat.directories, flat.book
        gates = folder.gates.unattended() if any(is_fetched(o.key) for o in objects) else folder.gates
        comparison = self.comparer.compare(
            dataset, build, families, pieces, baseline=baseline, gates=gates, columns=read.columns
        )
        refusal = None if accepted else comparison.refusal(gates, read.rows)
        if accepted:
            comparison = replace(comparison, summary=replace(comparison.summary, note=ACCEPTED))
        if refusal is not None:
            self.comparer.forget(dataset, build)  # never live, so never a baseline; its changes stay served
            summary = comparison.summary
            self.failures.refuse(dataset, build, refusal, summary, read, gates=gates, objects=objects, started=started)
            return False
        if comparison.reserved is not None and gates.reserved_space == "flag":
            reason = f'the objects answer for {comparison.reserved.text()}, reserved space (reserved_space "flag")'
            read.problems.warn(Problem("", None, reason))
        self.indexer.write(dataset, build, flat, read, index=folder.index)
        self._record(
            dataset,
            build,
            objects=objects,
            read=read,
            book=book,
            directories=directories,
            diff=comparison.summary,
            started=started,
            folder=folder,
            dated=dated,
        )
        self._send(dataset, build, book=book, rows=read.rows, started=started, deadline=deadline)
        for form in folder.exports:  # the exporter waits for the version to go live
            self.outbox.send(ExportVersion(dataset, build, form))
        return True

    def _record(
        self,
        dataset: str,
        build: int,
        *,
        objects: list[ObjectRef],
        read: Read,
        book: chunks.Book,
        directories: dict[int, Directory],
        diff: DiffSummary,
        started: float,
        folder: FolderSettings,
        dated: str | None,
    ) -> None:
        """The build record, the version's header and directory, the report and the dataset's progress."""
        aliases = tuple(sorted(read.aliases))
        aliased = tuple(map(parse_alias, aliases))
        joins, mapped = folder.keyed_joins, folder.mmdb_profile_columns
        info = VersionInfo(
            dataset, build, read.columns, directories, True, aliased, keyed_joins=joins, profile_columns=mapped
        )
        key, settings = report_key(dataset, build), settings_digest(folder)
        created = iso(self.clock())
        header = _header(read, items=len(book), objects=objects, created=created, settings=settings, folder=folder)
        # The build record first: whatever this build writes after it, clean-up can find it (and delete it).
        self.builds.put(_build_record(dataset, build, header, report=key, started=started, dated=dated, diff=diff))
        self.versions.put(info, header)
        self.reports.write(
            dataset,
            build,
            "WRITING",
            objects=objects,
            rows=read.rows,
            items=len(book),
            problems=read.problems,
            started=started,
            diff=diff,
        )
        kept = for_record(read.problems.kept, RECORD_PROBLEMS)
        self.datasets.update_load(
            dataset,
            build,
            self.clock(),
            phase=Phase.WRITING,
            rows_read=read.rows,
            items=len(book),
            problems=kept,
            report=key,
            diff=diff,
        )

    def _send(self, dataset: str, build: int, *, book: chunks.Book, rows: int, started: float, deadline: float) -> None:
        """The pieces as chunk messages; a build of one chunk (or a chunk too large for a message) written here."""
        here: list[tuple[int, Sequence[int], str]] = []  # chunks written from this invocation

        def messages() -> Iterator[WriteChunk]:
            runs = chunks.cut(book.shuffled(seed=build), self.chunk_items, book.encode)
            for number, (run, payload) in enumerate(runs, 1):
                if len(book) <= self.chunk_items or len(payload) > chunks.MAX_PAYLOAD_CHARS:
                    here.append((number, run, payload))  # one chunk in all, or too large for a message
                else:
                    yield WriteChunk(dataset, build, number, payload)

        sent = self.outbox.send_all(messages())
        for number, run, payload in here:
            outcome, _ = self.writer.write(dataset, build, number, book.items(run, dataset, build), deadline)
            if outcome.unfinished:
                if len(payload) > chunks.MAX_PAYLOAD_CHARS:
                    raise StoreUnavailable(f"chunk {number} of build {build} could not be written in time")
                self.outbox.send(WriteChunk(dataset, build, number, payload))  # the data queue finishes it
        record = self.builds.start_writing(dataset, build, sent + len(here))
        seconds = round(self.clock() - started, 1)
        summary = {"rows": rows, "items": len(book), "chunks": len(here) + sent, "seconds": seconds}
        self.telemetry.logger.info("build planned", extra={"dataset": dataset, "build": build, **summary})
        if record is not None and record.complete:
            self.going_live.finalize(dataset, build)
