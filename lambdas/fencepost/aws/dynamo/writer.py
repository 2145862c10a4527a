"""Bulk writes: BatchWriteItem from several threads, paced to what the table accepts, until a deadline."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws.dynamo.client import REFUSALS, Table, error_code, refused
from fencepost.aws.dynamo.codec import Item
from fencepost.aws.dynamo.pacing import Backoff, Pacer, Work, table_level
from fencepost.core.storage.chunks import WriteOutcome
from fencepost.core.storage.keys import PK
from fencepost.errors import StoreUnavailable

BATCH_SIZE = 25  # BatchWriteItem's limit
PACER_MEMORY = 60.0  # seconds

# Answers that mean "not now": the batch is sent again after a pause. Anything else is a fault of the request.
_RETRYABLE = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
}


class BulkWriter:
    """Puts and deletes in batches of 25, ``threads`` calls in flight, paced to what the table accepts
    (``fencepost.aws.dynamo.pacing``): the rate is cut when DynamoDB refuses, at the level it names, and raised again
    while it accepts; refused items wait for their key while other keys go on. ``rate`` is a ceiling (0: none).
    ``pacing=False`` is the writer as it was before (``WRITE_PACING=off``, kept to compare the two): no rate but the
    ceiling, and each thread sends its refused items again after an exponential pause with full jitter."""

    def __init__(
        self,
        table: Table,
        *,
        threads: int = 1,
        rate: float = 0.0,
        pacing: bool = True,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.table = table
        self.threads = max(1, threads)
        self.rate = rate
        self.pacing = pacing
        self.clock = clock
        self.sleep = sleep
        self._pacer: Pacer | None = None  # what the table accepted, kept across calls of a warm container
        self._used = float("-inf")
        # Writes of one container may run at once (``make run``'s workers share a writer): they share its pacer,
        # so every run's bookkeeping, pacer included, holds this one lock.
        self.lock = threading.Lock()

    def put(self, items: Sequence[Item], *, deadline: float) -> WriteOutcome:
        return self.write([{"PutRequest": {"Item": item}} for item in items], deadline=deadline)

    def delete(self, keys: Sequence[Item], *, deadline: float) -> WriteOutcome:
        return self.write([{"DeleteRequest": {"Key": key}} for key in keys], deadline=deadline)

    def put_all(self, items: Sequence[Item]) -> None:
        """Write every item, however long it takes (tests and small jobs)."""
        outcome = self.put(items, deadline=float("inf"))
        assert not outcome.unfinished

    def write(self, requests: Sequence[dict[str, Any]], *, deadline: float) -> WriteOutcome:
        """BatchWriteItem until every request is written or ``deadline`` (a ``clock()`` value) passes.

        What is not written by the deadline comes back in ``unfinished``; nothing is written twice or lost. A
        request DynamoDB refuses as invalid raises ``StoreRefused``; one it refuses for another reason,
        ``StoreUnavailable``.
        """
        with self.lock:
            pacer = self._pacer_at(self.clock())
        run = _Run(self, Work(requests, key_of), pacer, deadline)
        with ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="writer") as pool:
            for future in [pool.submit(run.thread) for _ in range(self.threads)]:
                future.result()
        with self.lock:
            self._used = self.clock()
        return run.outcome

    def _pacer_at(self, now: float) -> Pacer:
        """The container's pacer: its rate still holds after a pause of up to ``PACER_MEMORY`` seconds (the next
        chunk of the same load); after a longer one it starts afresh."""
        if not self.pacing:  # the ceiling alone (none: unlimited)
            return Pacer(ceiling=self.rate, start=float("inf"), now=now)
        if self._pacer is None or now - self._used > PACER_MEMORY:
            self._pacer = Pacer(ceiling=self.rate, now=now)
        self._used = now
        return self._pacer

    def _send(self, batch: list[Any]) -> tuple[list[Any], list[str]]:
        """One BatchWriteItem: what is left to send, and the ``ThrottlingReasons`` of a refusal."""
        name = self.table.name
        try:
            response = self.table.client.batch_write_item(RequestItems={name: batch})
        except ClientError as error:
            if error_code(error) in REFUSALS:
                raise refused("BatchWriteItem", error) from error
            if error_code(error) not in _RETRYABLE:
                raise StoreUnavailable(f"DynamoDB refused a batch write: {error}") from error
            found: Any = error.response.get("ThrottlingReasons", [])
            return batch, [str(reason.get("reason", "")) for reason in found if isinstance(reason, dict)]
        except BotoCoreError:
            return batch, []
        return list(response.get("UnprocessedItems", {}).get(name, [])), []


def key_of(request: dict[str, Any]) -> str:
    """The partition key of a write request (a put or a delete)."""
    item = request["PutRequest"]["Item"] if "PutRequest" in request else request["DeleteRequest"]["Key"]
    return str(item.get(PK, {}).get("S", ""))


class _Run:
    """One ``write``: the requests, what became of them, and the threads' shared pacing, behind the writer's lock."""

    def __init__(self, writer: BulkWriter, work: Work[dict[str, Any]], pacer: Pacer, deadline: float) -> None:
        self.writer, self.work, self.pacer, self.deadline = writer, work, pacer, deadline
        self.outcome = WriteOutcome()
        self.keys = Backoff()
        self.lock = writer.lock
        self.failed = False  # a thread raised: its batch never comes back, and the others stop

    def thread(self) -> None:
        """Send batches until the work is done or the deadline; an error ends every thread of the run at once (the
        others would otherwise wait for the failed thread's batch until the deadline)."""
        try:
            self._send_batches()
        except BaseException:
            self.failed = True
            raise

    def _send_batches(self) -> None:
        clock, sleep, deadline = self.writer.clock, self.writer.sleep, self.deadline
        held: list[dict[str, Any]] = []  # pacing off: the batch this thread sends again, as before pacing
        attempt = 0
        while not self.failed:
            with self.lock:
                now = clock()
                if now >= deadline:
                    self.outcome.unfinished.extend([*held, *self.work.drain()])
                    return
                batch, wait = (held, 0.0) if held else self.work.take(BATCH_SIZE, now)
                if not batch and wait is None:
                    return
                pause = self.pacer.reserve(len(batch), now) if batch else min(wait or 0.0, 0.25)
            if pause > 0:
                sleep(max(0.0, min(pause, deadline - clock())))
            if not batch:
                continue
            sent = clock()
            if sent >= deadline:
                with self.lock:
                    self.work.give_back(batch)
                held = []
                continue
            left, reasons = self.writer._send(batch)
            held = self._came_back(batch, left, reasons, sent)
            attempt = attempt + 1 if held else 0
            if held:
                sleep(max(0.0, min(random.uniform(0, min(5.0, 0.05 * 2.0**attempt)), deadline - clock())))

    def _came_back(
        self, batch: list[dict[str, Any]], left: list[dict[str, Any]], reasons: list[str], sent: float
    ) -> list[dict[str, Any]]:
        """Account a call's answer; what this thread must send again itself (pacing off), else nothing."""
        with self.lock:
            now, outcome, work = self.writer.clock(), self.outcome, self.work
            outcome.written += len(batch) - len(left)
            outcome.calls += 1
            outcome.throttled += bool(left)
            outcome.retries += len(left)
            if not self.writer.pacing:  # each thread sends its batch again after a pause; nothing slows down
                work.finished(len(batch) - len(left))
                return left
            if left:
                share, whole = len(left) / len(batch), table_level(reasons)
                self.pacer.refused(now, share=share, whole_table=whole, sent=sent, items=len(batch) - len(left))
                self.keys.refused([key_of(request) for request in left], now)
                work.defer(left, self.keys, now)
            else:
                self.keys.accepted(key_of(request) for request in batch)
                self.pacer.accepted(now, len(batch))
            work.finished(len(batch))
            return []
