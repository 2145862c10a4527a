"""Every fake wired to the real ``LoadingService``: a bucket to drop objects into, queues to deliver, a clock to
move, and what the table holds, to compare with what the rows say it must hold."""

from __future__ import annotations

import json
from typing import Any

from fencepost.core.events import Event
from fencepost.core.storage.keys import builds_pk
from fencepost.loading.accepting import Accepted, accept_once
from fencepost.loading.service import LoadingService
from fencepost.model import BuildRecord, DatasetRecord
from fencepost.settings import LoaderSettings, TableSettings
from tests.fakes.bucket import FakeBucket, notification
from tests.fakes.datasets import FakeDatasets
from tests.fakes.history import FakeHistory
from tests.fakes.kernel import Clock, FakeTelemetry, Faults, Store, detached
from tests.fakes.queues import FakeQueues, Selector
from tests.fakes.tables import FakeBuilds, FakeVersions, FakeWriter
from tests.faults import Killed

DATASET = "geo"


def loader_settings(
    *,
    chunk_items: int = 50,
    max_receives: int = 3,
    settle_seconds: int = 10,
    retry_base: float = 5.0,
    stall_seconds: int = 1800,
    delete_grace: float = 960.0,
) -> LoaderSettings:
    return LoaderSettings(
        table=TableSettings("fake-ranges"),
        bucket="fake-bucket",
        control_queue_url="fake-control",
        data_queue_url="fake-data",
        settle_seconds=settle_seconds,
        chunk_items=chunk_items,
        max_receives=max_receives,
        retry_base=retry_base,
        stall_seconds=stall_seconds,
        delete_grace=delete_grace,
    )


# The folder settings of a dataset whose versions replace each other whole: the removed-share gate would rightly
# refuse each of them (``core.folders.gates``), and the tests that use it are about something else.
REPLACED_WHOLE: dict[str, Any] = {"max_removed_percent": None}


class RecordedEvents:
    """The change events the loader announces (``fencepost.core.events``), in order; every one delivered."""

    def __init__(self) -> None:
        self.sent: list[Event] = []

    def publish(self, *events: Event) -> list[Event]:
        self.sent.extend(events)
        return []


class World:
    def __init__(self, settings: LoaderSettings | None = None, *, folder: dict[str, Any] | None = None) -> None:
        """``folder``: the ``_settings.json`` the dataset's folder holds from the start (no notification)."""
        self.settings = settings or loader_settings()
        self.clock, self.faults, self.store = Clock(), Faults(), Store()
        self.datasets = FakeDatasets(self.store, self.faults)
        self.history = FakeHistory(self.store, self.faults, self.datasets)
        self.builds = FakeBuilds(self.store, self.faults)
        self.versions = FakeVersions(self.store, self.faults)
        self.writer = FakeWriter(self.store, self.faults, self.clock)
        self.bucket = FakeBucket(self.faults)
        self.queues = FakeQueues(self.clock, self.faults, max_receives=self.settings.max_receives)
        self.telemetry = FakeTelemetry()
        self.telemetry.logger.errors = self.queues.errors  # an error the loader caught and logged is a bug too
        self.events = RecordedEvents()
        self.service = LoadingService(
            self.settings,
            datasets=self.datasets,
            history=self.history,
            builds=self.builds,
            versions=self.versions,
            writer=self.writer,
            bucket=self.bucket,
            outbox=self.queues,
            telemetry=self.telemetry,
            billing_mode=lambda: "PAY_PER_REQUEST",
            clock=self.clock,
            monotonic=self.clock.monotonic,
            events=self.events,
        )
        self.queues.handler = self.service.handle
        if folder is not None:
            self.bucket.put_object(f"{DATASET}/_settings.json", json.dumps(folder))

    # -- what happens in the bucket: the object changes, and S3 notifies the control queue -------------------------

    def upload(self, key: str, body: bytes | str) -> None:
        self.bucket.put_object(key, body)
        self.queues.post(notification(key))

    def accept(self, dataset: str = DATASET) -> Accepted:
        """A person accepts the build a gate refused last, once (the admin module's ``accept``); nothing delivered."""
        return accept_once(
            dataset,
            folder=self.bucket,
            reports=self.bucket,
            datasets=self.datasets,
            outbox=self.queues,
            clock=self.clock,
        )

    def remove(self, key: str) -> None:
        self.bucket.delete_object(key)
        self.queues.post(notification(key, "ObjectRemoved:Delete"))

    # -- running the loader -------------------------------------------------------------------------------------------

    def settle(self, hold: Selector | None = None) -> int:
        """Deliver until no message is left (but held ones); returns the number of deliveries."""
        return self.queues.run(hold)

    def sweep(self) -> int:
        """The scheduled sweep; a crash in it only means the next sweep does its work."""
        try:
            return self.service.sweep()
        except Killed:
            return 0

    def clean_up(self, rounds: int = 2) -> None:
        """Let stalls and grace periods pass, sweep, deliver what that sent; ``rounds`` times."""
        for _ in range(rounds):
            self.clock.advance(max(self.settings.stall_seconds, self.settings.delete_grace) + 1)
            self.sweep()
            self.settle()

    # -- what is stored (read directly, not through the ports) -----------------------------------------------------

    def record(self, dataset: str = DATASET) -> DatasetRecord:
        return detached(self.datasets.records[dataset])

    def items(self, version: int, dataset: str = DATASET) -> dict[tuple[str, str], Any]:
        """Every range item of a version, keyed as ``tests.faults.expected_items`` keys them."""
        return self.store.with_prefix(f"{dataset}#{version}#")

    def range_versions(self, dataset: str = DATASET) -> set[int]:
        """Versions that have range items stored."""
        return {int(pk.split("#")[1]) for pk in self.store.partitions if pk.startswith(f"{dataset}#")}

    def stored_versions(self, dataset: str = DATASET) -> set[int]:
        """Versions that have anything stored: range items, a header or directory pages."""
        headers = {int(pk.split("#")[3]) for pk in self.store.partitions if pk.startswith(f"#v#{dataset}#")}
        return self.range_versions(dataset) | headers

    def build_records(self, dataset: str = DATASET) -> dict[int, BuildRecord]:
        pk = builds_pk(dataset)
        return {build: detached(self.store.get(pk, build)) for build in self.store.sort_keys(pk)}

    def report(self, key: str) -> Any:
        return self.bucket.document(key)
