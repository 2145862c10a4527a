"""The write path on real local components: moto's S3 and SQS server, DynamoDB Local, the real handlers."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from fencepost.bootstrap.fetch_wiring import FetchFunction, fetch_function
from fencepost.bootstrap.loader_wiring import loader_function
from fencepost.bootstrap.lookup_wiring import lookup_function
from local.dynamodb import DynamoDBLocal, MotoServer, local_client
from local.resources import create_bucket, create_queues
from local.worker import SqsWorker
from tests.support.stacks import Stack


@pytest.fixture(scope="session")
def moto_server() -> Iterator[str]:
    with MotoServer() as server:
        yield server.endpoint


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
        "SETTLE_SECONDS": "0",
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
