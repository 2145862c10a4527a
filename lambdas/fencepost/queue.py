"""The one module that talks to SQS: the loader's messages to itself (delayed builds, chunks, deletions)."""

from __future__ import annotations

import contextlib
import json
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.errors import Unavailable

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

MAX_DELAY = 900  # SQS's limit for DelaySeconds


def make_sqs_client() -> SQSClient:
    config = Config(connect_timeout=2, read_timeout=10, retries={"max_attempts": 5, "mode": "standard"})
    return boto3.client("sqs", config=config)


class Queue:
    def __init__(self, client: SQSClient, url: str) -> None:
        self.client = client
        self.url = url

    def send(self, message: dict[str, Any], delay: float = 0) -> None:
        seconds = max(0, min(MAX_DELAY, int(delay + 0.999)))
        try:
            self.client.send_message(
                QueueUrl=self.url, MessageBody=json.dumps(message, separators=(",", ":")), DelaySeconds=seconds
            )
        except (ClientError, BotoCoreError) as error:
            raise Unavailable(f"the loader queue refused a message: {error}") from error

    def send_stream(self, messages: Iterable[dict[str, Any]], threads: int = 8) -> int:
        """Send messages as they are produced, ``threads`` at a time, holding few in memory; returns the count."""
        count = 0
        pending: deque[Future[None]] = deque()
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for message in messages:
                pending.append(pool.submit(self.send, message))
                count += 1
                while len(pending) > 2 * threads:
                    pending.popleft().result()
            for future in pending:
                future.result()
        return count

    def retry_in(self, receipt_handle: str, seconds: float) -> None:
        """Make a message that failed visible again after ``seconds`` instead of the whole visibility timeout."""
        # If this fails the message returns after the queue's visibility timeout instead.
        with contextlib.suppress(ClientError, BotoCoreError):
            self.client.change_message_visibility(
                QueueUrl=self.url, ReceiptHandle=receipt_handle, VisibilityTimeout=max(0, min(43_200, int(seconds)))
            )
