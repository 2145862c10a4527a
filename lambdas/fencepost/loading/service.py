"""The loading steps wired together: what the loader function runs for each message and for the sweep."""

from __future__ import annotations

import time
from typing import Protocol

from fencepost.loading.changes import Changes
from fencepost.loading.cleanup import BuildRecords, Deletions, LoadRecords, Sweeper, VersionItems
from fencepost.loading.comparing import Comparer, PieceFiles
from fencepost.loading.delivery import Delivery
from fencepost.loading.dispatch import Dispatcher
from fencepost.loading.failing import Failures
from fencepost.loading.going_live import BillingMode, GoLive, LiveSwitch
from fencepost.loading.planning import BuildNumbers, Planner
from fencepost.loading.ports import Clock, Documents, Folder, LoadProgress, Outbox, Telemetry, Writer
from fencepost.loading.publishing import BuildStarts, Publisher, VersionWrites
from fencepost.loading.reading import Reader
from fencepost.loading.reports import Reports
from fencepost.loading.writing import ChunkCounts, ChunkWriter
from fencepost.model import DatasetRecord
from fencepost.settings import LoaderSettings


class DatasetStore(BuildNumbers, LiveSwitch, LoadProgress, LoadRecords, Protocol):
    def note_request(self, name: str, now: float) -> int: ...
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...


class BuildStore(BuildRecords, BuildStarts, ChunkCounts, Protocol): ...


class VersionStore(VersionItems, VersionWrites, Protocol): ...


class Bucket(Folder, Documents, PieceFiles, Protocol): ...


class LoadingService:
    """Every step, each given only what it uses."""

    def __init__(
        self,
        settings: LoaderSettings,
        *,
        datasets: DatasetStore,
        builds: BuildStore,
        versions: VersionStore,
        writer: Writer,
        bucket: Bucket,
        outbox: Outbox,
        telemetry: Telemetry,
        billing_mode: BillingMode,
        clock: Clock = time.time,
        monotonic: Clock = time.monotonic,
    ) -> None:
        s = settings
        reports = Reports(documents=bucket, clock=clock)
        deletions = Deletions(
            datasets=datasets,
            versions=versions,
            builds=builds,
            writer=writer,
            files=bucket,
            outbox=outbox,
            monotonic=monotonic,
            telemetry=telemetry,
            clock=clock,
            writer_timeout=s.writer_timeout,
        )
        failures = Failures(
            datasets=datasets, builds=builds, reports=reports, deletions=deletions, telemetry=telemetry, clock=clock
        )
        going_live = GoLive(
            datasets=datasets,
            builds=builds,
            reports=reports,
            deletions=deletions,
            failures=failures,
            delete_grace=s.delete_grace,
            billing_mode=billing_mode,
            telemetry=telemetry,
            clock=clock,
        )
        chunks = ChunkWriter(
            builds=builds,
            datasets=datasets,
            writer=writer,
            going_live=going_live,
            failures=failures,
            monotonic=monotonic,
            max_receives=s.max_receives,
            retry_base=s.retry_base,
            telemetry=telemetry,
            clock=clock,
        )
        publisher = Publisher(
            comparer=Comparer(files=bucket, telemetry=telemetry),
            datasets=datasets,
            versions=versions,
            builds=builds,
            outbox=outbox,
            writer=chunks,
            going_live=going_live,
            failures=failures,
            reports=reports,
            chunk_items=s.chunk_items,
            telemetry=telemetry,
            clock=clock,
        )
        planner = Planner(
            datasets=datasets,
            builds=builds,
            folder=bucket,
            reader=Reader(
                files=bucket, datasets=datasets, monotonic=monotonic, telemetry=telemetry, clock=clock, limits=s.limits
            ),
            publisher=publisher,
            failures=failures,
            deletions=deletions,
            max_receives=s.max_receives,
            delete_grace=s.delete_grace,
            telemetry=telemetry,
            clock=clock,
        )
        self.changes = Changes(
            datasets=datasets,
            documents=bucket,
            outbox=outbox,
            settle_seconds=s.settle_seconds,
            telemetry=telemetry,
            clock=clock,
        )
        self.dispatcher = Dispatcher(
            changes=self.changes,
            planner=planner,
            writer=chunks,
            deletions=deletions,
            failures=failures,
            telemetry=telemetry,
            max_receives=s.max_receives,
            retry_base=s.retry_base,
        )
        self.sweeper = Sweeper(
            datasets=datasets,
            builds=builds,
            failures=failures,
            going_live=going_live,
            deletions=deletions,
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
