"""The one module that talks to SQS: the loader's two queues.

The control queue carries S3's notifications and build requests; the data queue carries chunk writes and
deletions. Each message goes to its lane's queue, so a control message never waits behind a load's chunks.
"""

from __future__ import annotations

import contextlib
import json
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws import USER_AGENT
from fencepost.errors import DependencyUnavailable

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

MAX_DELAY = 900  # SQS's limit for DelaySeconds


class QueueUnavailable(DependencyUnavailable):
    """SQS refused or did not answer."""


def make_sqs_client() -> SQSClient:
    config = Config(
        connect_timeout=2, read_timeout=10, retries={"max_attempts": 5, "mode": "standard"}, user_agent=USER_AGENT
    )
    return boto3.client("sqs", config=config)


def queue_name(url_or_arn: str) -> str:
    """The queue's name, from its URL (``.../<account>/<name>``) or its ARN (``arn:aws:sqs:...:<name>``)."""
    return url_or_arn.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]


class Routed(Protocol):
    """A message that names its queue: ``"control"`` or ``"data"``."""

    @property
    def lane(self) -> str: ...


M = TypeVar("M", bound=Routed)


class Queues(Generic[M]):
    """Messages of type ``M``, each sent to its lane's queue as the body ``encode`` makes of it."""

    def __init__(self, client: SQSClient, *, control_url: str, data_url: str, encode: Callable[[M], str]) -> None:
        self.client = client
        self.urls = {"control": control_url, "data": data_url}
        self.encode = encode

    def send(self, message: M, delay: float = 0) -> None:
        seconds = max(0, min(MAX_DELAY, int(delay + 0.999)))
        body = self.encode(message)
        try:
            self.client.send_message(QueueUrl=self.urls[message.lane], MessageBody=body, DelaySeconds=seconds)
        except (ClientError, BotoCoreError) as error:
            raise QueueUnavailable(f"the {message.lane} queue refused a message: {error}") from error

    def send_all(self, messages: Iterable[M], threads: int = 8) -> int:
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

    def retry_in(self, source_arn: str, receipt_handle: str, seconds: float) -> None:
        """Make a message that failed visible again on the queue it came from after ``seconds``, instead of
        after the whole visibility timeout."""
        name = queue_name(source_arn)
        url = next((url for url in self.urls.values() if queue_name(url) == name), None)
        if url is None:
            return  # not one of ours: it comes back after its queue's visibility timeout
        # If this fails the message returns after the queue's visibility timeout instead.
        with contextlib.suppress(ClientError, BotoCoreError):
            self.client.change_message_visibility(
                QueueUrl=url, ReceiptHandle=receipt_handle, VisibilityTimeout=max(0, min(43_200, int(seconds)))
            )


class TableRequests:
    """Asks the tables function (its queue) to write a version's Parquet and bring the catalog up to date: the body
    ``{"dataset": ..., "version": ...}``. ``client`` makes the SQS client (called at each send: cache it)."""

    def __init__(self, client: Callable[[], SQSClient], url: str) -> None:
        self.client, self.url = client, url

    def __call__(self, dataset: str, version: int) -> None:
        body = json.dumps({"dataset": dataset, "version": version})
        try:
            self.client().send_message(QueueUrl=self.url, MessageBody=body)
        except (ClientError, BotoCoreError) as error:
            raise QueueUnavailable(f"the tables queue refused a message: {error}") from error
