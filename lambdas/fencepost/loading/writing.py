"""Writing a chunk: its items go to DynamoDB in parallel batches, the build record counts it once, and the last
chunk counted finalizes the build. A chunk not written by the invocation's deadline is handed back; on its last
delivery the load fails (and the message goes to the dead-letter queue)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.storage import chunks
from fencepost.core.storage.chunks import WriteOutcome
from fencepost.core.storage.items import Item
from fencepost.loading.delivery import Delivery, HandBack, backoff
from fencepost.loading.failing import Failures
from fencepost.loading.going_live import GoLive
from fencepost.loading.messages import WriteChunk
from fencepost.loading.ports import Clock, LoadProgress, Telemetry, Writer
from fencepost.model import UNFINISHED, BuildRecord


class ChunkCounts(Protocol):
    def get(self, dataset: str, build: int) -> BuildRecord | None: ...
    def count_chunk(self, dataset: str, build: int, chunk: int, items: int) -> BuildRecord | None: ...


@dataclass(kw_only=True, slots=True)
class ChunkWriter:
    builds: ChunkCounts
    datasets: LoadProgress
    writer: Writer
    going_live: GoLive
    failures: Failures
    telemetry: Telemetry
    clock: Clock
    monotonic: Clock
    max_receives: int
    retry_base: float

    def on_chunk(self, message: WriteChunk, delivery: Delivery) -> None:
        dataset, build, number = message.dataset, message.build, message.chunk
        record = self.builds.get(dataset, build)
        if record is None or record.state not in UNFINISHED:
            self.telemetry.logger.info("chunk dropped: its build is over", extra={"dataset": dataset, "build": build})
            return
        if number not in record.done:
            items = chunks.decode(message.payload, dataset, build)
            outcome, updated = self.write(dataset, build, number, items, delivery.deadline)
            if outcome.unfinished:
                reason = (
                    f"chunk {number} of build {build}: {len(outcome.unfinished)} of {len(items)} items were not "
                    f"written before the invocation's deadline ({outcome.throttled} throttled calls)"
                )
                if delivery.receive_count >= self.max_receives:
                    self.failures.fail_build(dataset, build, f"{reason}, after {delivery.receive_count} deliveries")
                raise HandBack(reason, backoff(delivery, self.retry_base))
            # None: counted already (a retried update whose first answer was lost): read what it holds now.
            record = updated or self.builds.get(dataset, build) or record
        if record.complete:
            self.going_live.finalize(dataset, build)

    def write(
        self, dataset: str, build: int, number: int, items: Sequence[Item], deadline: float
    ) -> tuple[WriteOutcome, BuildRecord | None]:
        """Write a chunk's items and, if all were written, count the chunk: the build record after that (None
        when the chunk had been counted already)."""
        started = self.monotonic()
        outcome = self.writer.put(items, deadline=deadline)
        metrics = self.telemetry.metrics
        metrics.add_metric(name="ItemsWritten", unit=MetricUnit.Count, value=outcome.written)
        metrics.add_metric(name="WriteCalls", unit=MetricUnit.Count, value=outcome.calls)
        metrics.add_metric(name="Throttles", unit=MetricUnit.Count, value=outcome.throttled)
        metrics.add_metric(name="Retries", unit=MetricUnit.Count, value=outcome.retries)
        if outcome.unfinished:
            return outcome, None
        updated = self.builds.count_chunk(dataset, build, number, len(items))
        if updated is not None:
            self.datasets.update_load(dataset, build, self.clock(), items_written=updated.written)
            self.telemetry.logger.info(
                "chunk written",
                extra={
                    "dataset": dataset,
                    "build": build,
                    "chunk": number,
                    "of": updated.chunks,
                    "items": len(items),
                    "throttled": outcome.throttled,
                    "seconds": round(self.monotonic() - started, 2),
                },
            )
        return outcome, updated
