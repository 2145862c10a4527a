"""Bulk writes: BatchWriteItem from several threads, retried with backoff until a deadline, optionally rate-limited."""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from fencepost.dynamo.client import REFUSALS, Table, error_code, refused
from fencepost.dynamo.codec import Item
from fencepost.dynamo.errors import StoreUnavailable

BATCH_SIZE = 25  # BatchWriteItem's limit

# Answers that mean "not now": the batch is sent again after a pause. Anything else is a fault of the request.
_RETRYABLE = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
}


@dataclass(slots=True)
class WriteOutcome:
    written: int = 0
    throttled: int = 0  # calls refused or answered with unprocessed items
    retries: int = 0  # items sent again after such an answer
    unfinished: list[dict[str, Any]] = field(default_factory=list)  # requests not written by the deadline


class RateLimiter:
    """A token bucket shared by writer threads: at most ``rate`` items per second (0: unlimited)."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.clock = clock
        self.tokens = rate
        self.stamp = clock()
        self.lock = threading.Lock()

    def acquire(self, count: int) -> None:
        if self.rate <= 0:
            return
        while True:
            with self.lock:
                now = self.clock()
                self.tokens = min(self.rate, self.tokens + (now - self.stamp) * self.rate)
                self.stamp = now
                if self.tokens >= count or self.tokens >= self.rate:
                    self.tokens -= count
                    return
                wait = (count - self.tokens) / self.rate
            time.sleep(wait)


class BulkWriter:
    """Puts and deletes in batches of 25, ``threads`` calls in flight."""

    def __init__(
        self,
        table: Table,
        *,
        threads: int = 1,
        rate: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.table = table
        self.threads = max(1, threads)
        self.rate = rate
        self.clock = clock
        self.sleep = sleep

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

        Unprocessed items and throttling are retried with exponential backoff and full jitter; what is not written
        by the deadline comes back in ``unfinished``. A request DynamoDB refuses as invalid raises ``StoreRefused``;
        one it refuses for another reason, ``StoreUnavailable``.
        """
        batches = deque(list(requests[offset : offset + BATCH_SIZE]) for offset in range(0, len(requests), BATCH_SIZE))
        outcome = WriteOutcome()
        lock = threading.Lock()
        limiter = RateLimiter(self.rate, self.clock) if self.rate > 0 else None

        def give_up(batch: list[Any]) -> None:
            with lock:
                outcome.unfinished.extend(batch)
                while batches:
                    outcome.unfinished.extend(batches.popleft())

        def writer() -> None:
            while True:
                with lock:
                    if not batches:
                        return
                    batch: list[Any] = batches.popleft()
                attempt = 0
                while batch:
                    if self.clock() >= deadline:
                        give_up(batch)
                        return
                    if limiter is not None:
                        limiter.acquire(len(batch))
                    sent = len(batch)
                    batch, refused = self._send(batch)
                    with lock:
                        outcome.written += sent - len(batch)
                        if refused:
                            outcome.throttled += 1
                            outcome.retries += len(batch)
                    if refused:
                        pause = random.uniform(0, min(5.0, 0.05 * 2**attempt))
                        self.sleep(max(0.0, min(pause, deadline - self.clock())))
                        attempt += 1
                    else:
                        attempt = 0

        with ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="writer") as pool:
            for future in [pool.submit(writer) for _ in range(self.threads)]:
                future.result()
        return outcome

    def _send(self, batch: list[Any]) -> tuple[list[Any], bool]:
        """One BatchWriteItem: what is left to send, and whether DynamoDB held anything back."""
        name = self.table.name
        try:
            response = self.table.client.batch_write_item(RequestItems={name: batch})
        except ClientError as error:
            if error_code(error) in REFUSALS:
                raise refused("BatchWriteItem", error) from error
            if error_code(error) not in _RETRYABLE:
                raise StoreUnavailable(f"DynamoDB refused a batch write: {error}") from error
            return batch, True
        except BotoCoreError:
            return batch, True
        left = list(response.get("UnprocessedItems", {}).get(name, []))
        return left, bool(left)
