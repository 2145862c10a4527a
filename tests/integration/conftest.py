"""The write path on real local components: moto's S3 and SQS server, DynamoDB Local, the real handlers."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from fencepost.bootstrap.fetch_wiring import FetchFunction, fetch_function
from fencepost.bootstrap.loader_wiring import LoaderFunction, loader_function
from fencepost.bootstrap.lookup_wiring import LookupFunction, lookup_function
from local.dynamodb import DynamoDBLocal, MotoServer, local_client
from local.resources import Queues, create_bucket, create_queues
from local.worker import SqsWorker, drain_all
from tests.support import LambdaContext, event


@pytest.fixture(scope="session")
def moto_server() -> Iterator[str]:
    with MotoServer() as server:
        yield server.endpoint


@dataclass
class Stack:
    """One isolated service: its own table, bucket and queues, the loader and lookup handlers, a worker per queue."""

    s3: Any
    sqs: Any
    ddb: Any
    table: str
    bucket: str
    queues: Queues
    loader: LoaderFunction
    lookup: LookupFunction
    control: SqsWorker
    data: SqsWorker

    @property
    def workers(self) -> list[SqsWorker]:
        return [self.control, self.data]

    def deliver_with(self, wrap: Any) -> None:
        """Put ``wrap(handler)`` between both queues and the loader."""
        for worker in self.workers:
            worker.handler = wrap(worker.handler)

    def put(self, key: str, body: bytes | str) -> None:
        self.s3.put_object(Bucket=self.bucket, Key=key, Body=body.encode() if isinstance(body, str) else body)

    def delete(self, key: str) -> None:
        self.s3.delete_object(Bucket=self.bucket, Key=key)

    def drain(self, timeout: float = 300.0, *, dead_letters: bool = False) -> None:
        """Deliver until the queue is empty. A message parked in the dead-letter queue empties the queue too,
        without finishing its work: unless the test expects that, say so loudly."""
        started = time.monotonic()
        drain_all(self.workers, timeout=timeout)
        loading = [d for d in self.get("/datasets")[1]["datasets"] if d["status"] == "LOADING"]
        if loading:
            names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
            names.append("ApproximateNumberOfMessagesDelayed")
            counters = [
                self.sqs.get_queue_attributes(QueueUrl=queue.url, AttributeNames=names)["Attributes"]
                for queue in self.queues
            ]
            raise AssertionError(
                f"the queues drained after {time.monotonic() - started:.1f} s but loads are unfinished: "
                f"{json.dumps(loading)}; queues {counters}; invocations {[w.invocations for w in self.workers]}"
            )
        if not dead_letters:
            parked = [
                message
                for queue in self.queues
                for message in self.sqs.receive_message(
                    QueueUrl=queue.dlq_url, MaxNumberOfMessages=10, AttributeNames=["All"], VisibilityTimeout=0
                ).get("Messages", [])
            ]
            details = [(m["Body"][:300], m["Attributes"].get("ApproximateReceiveCount")) for m in parked]
            assert not parked, f"messages went to the dead-letter queue: {details}"

    def drain_until(self, condition: Any, timeout: float = 120.0) -> None:
        """Deliver messages one at a time until ``condition()`` holds."""
        drain_all(self.workers, timeout=timeout, until=condition)

    def get(self, path: str, **query: str) -> tuple[int, dict[str, Any]]:
        ev = event("lookup-get")
        ev["rawPath"] = ev["requestContext"]["http"]["path"] = path
        ev["queryStringParameters"] = query or None
        response = self.lookup.handler(ev, LambdaContext())
        return response["statusCode"], json.loads(response["body"])

    def dataset(self, name: str) -> dict[str, Any]:
        status, body = self.get(f"/datasets/{name}")
        assert status == 200, body
        return body

    def report(self, key: str) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read())
        return document


@pytest.fixture
def stack(
    dynamodb_local: DynamoDBLocal,
    moto_server: str,
    ddb_table: tuple[Any, str],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> Stack:
    ddb, table = ddb_table
    name = f"t{uuid.uuid4().hex[:10]}"
    s3, sqs = local_client(moto_server, "s3"), local_client(moto_server, "sqs")
    queues = create_queues(sqs, name, visibility=2, max_receives=3)
    create_bucket(s3, name, queues)
    env = {
        "TABLE_NAME": table,
        "BUCKET_NAME": name,
        "CONTROL_QUEUE_URL": queues.control.url,
        "DATA_QUEUE_URL": queues.data.url,
        "EXPORT_QUEUE_URL": queues.data.url,
        "AWS_ENDPOINT_URL_DYNAMODB": dynamodb_local.endpoint,
        "AWS_ENDPOINT_URL_S3": moto_server,
        "AWS_ENDPOINT_URL_SQS": moto_server,
        "SETTLE_SECONDS": "1",
        "CHUNK_ITEMS": "400",
        "WRITE_THREADS": "4",
        "CACHE_TTL_SECONDS": "0",
        "DELETE_GRACE_SECONDS": "0",
        # Messages are delivered one at a time here: no writer outlives the delivery that abandons its build.
        "WRITER_TIMEOUT_SECONDS": "0",
        "MAX_RECEIVES": "3",
        "DEADLINE_MARGIN_SECONDS": "1",
        "RETRY_BASE_SECONDS": "0.2",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }
    env.update(getattr(request, "param", {}))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    loader, lookup = loader_function(), lookup_function()  # wired from the environment just set
    control, data = (SqsWorker(sqs, queue.url, queue.arn, loader.handler, timeout=60) for queue in queues)
    return Stack(s3, sqs, ddb, table, name, queues, loader, lookup, control, data)


@pytest.fixture
def fetch(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> FetchFunction:
    """The fetch function as ``make run`` wires it (after the stack set its environment): sources may be checked
    every second, over plain http, from publishers on this machine; secrets in the local Secrets Manager."""
    monkeypatch.setenv("SOURCE_MIN_EVERY_SECONDS", "1")
    monkeypatch.setenv("SOURCE_HTTPS_ONLY", "false")
    monkeypatch.setenv("SOURCE_ALLOW_LOOPBACK", "true")
    monkeypatch.setenv("FETCH_ATTEMPTS", "2")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", stack.s3.meta.endpoint_url)
    return fetch_function()
