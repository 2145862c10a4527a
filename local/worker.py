"""Delivers queue messages to a handler the way Lambda's SQS event source does.

Batches of records in Lambda's event shape; records named in ``batchItemFailures`` (or all of them, when the
handler raises) stay on the queue and come back after their visibility timeout; the rest are deleted.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from fencepost.observability import LOADER_SERVICE
from local.resources import queue_depth

Handler = Callable[[dict[str, Any], Any], Any]
# A worker's poll waits this long for a message, as Lambda's event source long-polls: an idle stack sends one
# ReceiveMessage per worker every 20 s, not every second. A stop ends the waits at once (``SqsWorker.wake``).
LONG_POLL_SECONDS = 20
WAKE = "fencepost-local-wake"  # the message attribute of a stop's wake-up message: deleted, never delivered


class LambdaContext:
    """What a handler reads of its context; the time limit runs from the start of the invocation."""

    def __init__(self, function_name: str, timeout: float, memory: int = 1024) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = memory
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:000000000000:function:{function_name}"
        self.aws_request_id = str(uuid.uuid4())
        self._deadline = time.monotonic() + timeout

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class SqsWorker:
    def __init__(
        self,
        sqs: Any,
        queue_url: str,
        queue_arn: str,
        handler: Handler,
        *,
        batch_size: int = 1,
        timeout: float = 900.0,
        function_name: str = LOADER_SERVICE,
    ) -> None:
        self.sqs = sqs
        self.queue_url = queue_url
        self.queue_arn = queue_arn
        self.handler = handler
        self.batch_size = batch_size
        self.timeout = timeout
        self.function_name = function_name
        self.invocations = 0
        self.busy_seconds = 0.0  # handler time summed over invocations (what Lambda bills)
        self._lock = threading.Lock()

    def poll(self, wait: int = 0) -> int:
        """Receive one batch and invoke the handler with it; returns how many records it held."""
        messages = self.sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=wait,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        delivered = []
        for message in messages:
            if WAKE in message.get("MessageAttributes", {}):  # a stop's wake-up: deleted, never delivered
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
            else:
                delivered.append(message)
        messages = delivered
        if not messages:
            return 0
        event = {"Records": [self._record(message) for message in messages]}
        started = time.monotonic()
        try:
            response = self.handler(event, LambdaContext(self.function_name, self.timeout))
            failed = {item["itemIdentifier"] for item in (response or {}).get("batchItemFailures", [])}
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # a crashed invocation (an error, or the process killed): the batch stays queued
            failed = {message["MessageId"] for message in messages}
        self.add_invocation(time.monotonic() - started)
        for message in messages:
            if message["MessageId"] not in failed:
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
        return len(messages)

    def serve(self, stop: threading.Event, wait: int = LONG_POLL_SECONDS) -> None:
        """Poll and deliver until ``stop`` is set, as the event source does while the function exists (``wake``
        ends a poll's wait when ``stop`` is set)."""
        while not stop.is_set():
            try:
                self.poll(wait=wait)
            except Exception:  # the local S3/SQS is going away at shutdown
                if not stop.is_set():
                    time.sleep(0.5)

    def wake(self) -> None:
        """End one poll's wait on this queue: a message, which the poll deletes and returns on."""
        attributes = {WAKE: {"DataType": "String", "StringValue": "stop"}}
        self.sqs.send_message(QueueUrl=self.queue_url, MessageBody=WAKE, MessageAttributes=attributes)

    def add_invocation(self, seconds: float) -> None:
        """Count an invocation of ``seconds`` (also one made by a worker process on this queue)."""
        with self._lock:
            self.invocations += 1
            self.busy_seconds += seconds

    def _record(self, message: dict[str, Any]) -> dict[str, Any]:
        attributes = message.get("Attributes", {})
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": {
                "ApproximateReceiveCount": attributes.get("ApproximateReceiveCount", "1"),
                "SentTimestamp": attributes.get("SentTimestamp", str(int(time.time() * 1000))),
                "SenderId": attributes.get("SenderId", "000000000000"),
                "ApproximateFirstReceiveTimestamp": attributes.get(
                    "ApproximateFirstReceiveTimestamp", str(int(time.time() * 1000))
                ),
            },
            "messageAttributes": {},
            "md5OfBody": message.get("MD5OfBody", ""),
            "eventSource": "aws:sqs",
            "eventSourceARN": self.queue_arn,
            "awsRegion": "us-east-1",
        }

    def drain(self, timeout: float = 120.0, until: Callable[[], bool] | None = None) -> None:
        """Deliver until the queue is empty (nothing visible, in flight or delayed) or ``until()`` holds.

        Empty means empty twice, a moment apart: moto computes its counters one after another, so a message
        whose delay ends in between is counted by none of them and the queue looks empty for an instant.
        """
        drain_all([self], timeout, until)


def drain_all(workers: list[SqsWorker], timeout: float = 120.0, until: Callable[[], bool] | None = None) -> None:
    """Deliver from every worker's queue until all are empty at once (twice, a moment apart, as ``drain`` does),
    or ``until()`` holds: a message on one queue may send messages to another. One message at a time."""
    deadline = time.monotonic() + timeout
    empty_once = False
    while time.monotonic() < deadline:
        if until is not None and until():
            return
        if any(worker.poll() > 0 for worker in workers):
            empty_once = False
            continue
        if until is None and all(queue_depth(worker.sqs, worker.queue_url) == 0 for worker in workers):
            if empty_once:
                return
            empty_once = True
        else:
            empty_once = False
        time.sleep(0.05)
    raise TimeoutError(f"the queues did not drain within {timeout} s")


def wake(pollers: Iterable[SqsWorker]) -> None:
    """End the waits of the polls under way, one a poller (a thread serving its worker), once their stop is set; a
    poll not woken ends by itself within ``LONG_POLL_SECONDS``."""
    for worker in pollers:
        try:
            worker.wake()
        except Exception as error:  # the local S3/SQS is gone already
            logging.getLogger("local").warning("a worker's poll was not woken: %s", error)
