"""The loading steps wired together: what the loader function runs for each message and for the sweep."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from fencepost.core.events import ChangeEvents, NoEvents
from fencepost.loading.backfilling import Backfill, DatedFolders, DatedHistory
from fencepost.loading.building import Builder, BuildNumbers
from fencepost.loading.changes import Changes
from fencepost.loading.cleanup import BuildRecords, Deletions, LoadRecords, Sweeper, VersionItems
from fencepost.loading.comparing import Comparer, Histories, PieceFiles, StoredVersions
from fencepost.loading.delivery import Delivery
from fencepost.loading.dispatch import Dispatcher, Step
from fencepost.loading.exporting import ExportedVersions, Exporter, ExportFiles
from fencepost.loading.failing import Failures
from fencepost.loading.going_live import BillingMode, GoLive, LiveSwitch
from fencepost.loading.indexing import Indexer, IndexFiles
from fencepost.loading.keyed_building import KeyedBuilder, KeyFiles
from fencepost.loading.messages import Message
from fencepost.loading.ports import (
    Clock,
    Documents,
    Folder,
    LoadProgress,
    Outbox,
    SinkRequests,
    TableRequests,
    Telemetry,
    Writer,
)
from fencepost.loading.publishing import BuildStarts, Publisher, VersionWrites
from fencepost.loading.reading import Reader
from fencepost.loading.reports import Reports
from fencepost.loading.writing import ChunkCounts, ChunkWriter
from fencepost.model import DatasetRecord
from fencepost.settings import LoaderSettings


class DatasetStore(BuildNumbers, LiveSwitch, LoadProgress, LoadRecords, Histories, Protocol):
    def note_request(self, name: str, now: float) -> int: ...
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...


class BuildStore(BuildRecords, BuildStarts, ChunkCounts, Protocol): ...


class VersionStore(VersionItems, VersionWrites, ExportedVersions, StoredVersions, Protocol): ...


class Bucket(Folder, DatedFolders, Documents, PieceFiles, IndexFiles, ExportFiles, KeyFiles, Protocol): ...


@dataclass(frozen=True, slots=True)
class Ports:
    """What the loader is given: the stores, the bucket, the queues, telemetry and the clocks."""

    datasets: DatasetStore
    history: DatedHistory
    builds: BuildStore
    versions: VersionStore
    writer: Writer
    bucket: Bucket
    outbox: Outbox
    telemetry: Telemetry
    billing_mode: BillingMode
    clock: Clock
    monotonic: Clock
    tables: TableRequests | None = None
    events: ChangeEvents = field(default_factory=NoEvents)  # where each change is announced (fencepost.core.events)
    sinks: SinkRequests | None = None  # each version going live pushed to the folder's sinks (loading.pushing)


@dataclass(frozen=True, slots=True)
class Finishing:
    """The steps that end a load, whichever way: deletions, failures, going live (or into the history), and the
    chunk writer."""

    deletions: Deletions
    failures: Failures
    going_live: GoLive
    chunks: ChunkWriter
    backfill: Backfill


def _failures(p: Ports, reports: Reports, deletions: Deletions) -> Failures:
    return Failures(
        datasets=p.datasets,
        builds=p.builds,
        reports=reports,
        deletions=deletions,
        telemetry=p.telemetry,
        clock=p.clock,
        events=p.events,
    )


def _finishing(p: Ports, s: LoaderSettings, reports: Reports, changes: Changes) -> Finishing:
    deletions = Deletions(
        datasets=p.datasets,
        versions=p.versions,
        builds=p.builds,
        writer=p.writer,
        files=p.bucket,
        outbox=p.outbox,
        monotonic=p.monotonic,
        writer_timeout=s.writer_timeout,
        gone_wait=s.delete_grace,
        telemetry=p.telemetry,
        clock=p.clock,
        tables=p.tables,
    )
    failures = _failures(p, reports, deletions)
    backfill = Backfill(
        history=p.history,
        folders=p.bucket,
        failures=failures,
        deletions=deletions,
        next_build=lambda dataset: changes.request_build(dataset, s.settle_seconds),
        delete_grace=s.delete_grace,
        telemetry=p.telemetry,
        clock=p.clock,
    )
    going_live = GoLive(
        backfill=backfill,
        datasets=p.datasets,
        builds=p.builds,
        reports=reports,
        deletions=deletions,
        failures=failures,
        delete_grace=s.delete_grace,
        billing_mode=p.billing_mode,
        telemetry=p.telemetry,
        clock=p.clock,
        tables=p.tables,
        events=p.events,
        sinks=p.sinks,
    )
    chunks = ChunkWriter(
        builds=p.builds,
        datasets=p.datasets,
        writer=p.writer,
        going_live=going_live,
        failures=failures,
        monotonic=p.monotonic,
        max_receives=s.max_receives,
        retry_base=s.retry_base,
        telemetry=p.telemetry,
        clock=p.clock,
    )
    return Finishing(deletions, failures, going_live, chunks, backfill)


def _builder(p: Ports, s: LoaderSettings, reports: Reports, done: Finishing) -> Builder:
    publisher = Publisher(
        comparer=Comparer(
            files=p.bucket, versions=p.versions, history=p.datasets, telemetry=p.telemetry, clock=p.clock
        ),
        indexer=Indexer(files=p.bucket, telemetry=p.telemetry),
        datasets=p.datasets,
        versions=p.versions,
        builds=p.builds,
        outbox=p.outbox,
        writer=done.chunks,
        going_live=done.going_live,
        failures=done.failures,
        reports=reports,
        chunk_items=s.chunk_items,
        telemetry=p.telemetry,
        clock=p.clock,
    )
    reader = Reader(
        files=p.bucket,
        datasets=p.datasets,
        monotonic=p.monotonic,
        limits=s.limits,
        telemetry=p.telemetry,
        clock=p.clock,
    )
    keyed = KeyedBuilder(
        reader=reader,
        files=p.bucket,
        versions=p.versions,
        builds=p.builds,
        datasets=p.datasets,
        going_live=done.going_live,
        failures=done.failures,
        reports=reports,
        telemetry=p.telemetry,
        clock=p.clock,
    )
    return Builder(
        datasets=p.datasets,
        builds=p.builds,
        folder=p.bucket,
        reader=reader,
        publisher=publisher,
        backfill=done.backfill,
        failures=done.failures,
        deletions=done.deletions,
        max_receives=s.max_receives,
        delete_grace=s.delete_grace,
        telemetry=p.telemetry,
        clock=p.clock,
        sinks=p.sinks,
        tables=p.tables,
        keyed=keyed,
    )


def _exporter(p: Ports) -> Exporter:
    return Exporter(
        versions=p.versions,
        datasets=p.datasets,
        files=p.bucket,
        outbox=p.outbox,
        telemetry=p.telemetry,
        clock=p.clock,
        tables=p.tables,
    )


class LoadingService:
    """Every step, each given only what it uses."""

    def __init__(
        self,
        settings: LoaderSettings,
        *,
        datasets: DatasetStore,
        history: DatedHistory,
        builds: BuildStore,
        versions: VersionStore,
        writer: Writer,
        bucket: Bucket,
        outbox: Outbox,
        telemetry: Telemetry,
        billing_mode: BillingMode,
        clock: Clock = time.time,
        monotonic: Clock = time.monotonic,
        more_steps: Mapping[type[Message], Step] | None = None,
        tables: TableRequests | None = None,
        events: ChangeEvents | None = None,
        sinks: SinkRequests | None = None,
    ) -> None:
        s = settings
        ports = (datasets, history, builds, versions, writer, bucket, outbox, telemetry, billing_mode, clock)
        p = Ports(*ports, monotonic, tables, events or NoEvents(), sinks=sinks)
        reports = Reports(documents=bucket, clock=clock)
        self.changes = Changes(
            datasets=datasets,
            documents=bucket,
            outbox=outbox,
            settle_seconds=s.settle_seconds,
            telemetry=telemetry,
            clock=clock,
        )
        done = _finishing(p, s, reports, self.changes)
        self.dispatcher = Dispatcher(
            changes=self.changes,
            builder=_builder(p, s, reports, done),
            writer=done.chunks,
            deletions=done.deletions,
            exporter=_exporter(p),
            failures=done.failures,
            telemetry=telemetry,
            max_receives=s.max_receives,
            retry_base=s.retry_base,
            more=more_steps,
        )
        self.sweeper = Sweeper(
            datasets=datasets,
            builds=builds,
            failures=done.failures,
            going_live=done.going_live,
            deletions=done.deletions,
            clock=clock,
            stall_seconds=s.stall_seconds,
            delete_grace=s.delete_grace,
        )

    def handle(self, body: str, delivery: Delivery) -> None:
        self.dispatcher.handle(body, delivery)

    def sweep(self) -> int:
        return self.sweeper.sweep()

    def request_build(self, dataset: str, delay: float = 1) -> int:
        return self.changes.request_build(dataset, delay)
