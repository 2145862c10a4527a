"""The service with its tables function, for the tests of each version as a Parquet table in the Glue Data Catalog:
a ``Stack`` (``tests/integration/conftest.py``) wired again with a tables queue and a Glue database on moto's
server, and the tables function delivered from that queue in-process."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fencepost.bootstrap.loader_wiring import loader_function
from fencepost.bootstrap.lookup_wiring import lookup_function
from fencepost.bootstrap.tables_wiring import tables_function
from local.dynamodb import local_client
from local.resources import Queue, create_glue_database, create_tables_queue
from local.worker import SqsWorker, drain_all
from tests.support.stacks import Stack


@dataclass
class TablesStack:
    stack: Stack
    glue: Any
    database: str
    queue: Queue
    worker: SqsWorker

    def drain(self) -> None:
        drain_all([*self.stack.workers, self.worker], timeout=120)
        self.stack.drain()

    def table(self, name: str) -> dict[str, Any]:
        table: dict[str, Any] = self.glue.get_table(DatabaseName=self.database, Name=name)["Table"]
        return table

    def parquet(self, key: str, folder: Path) -> Path:
        path = folder / key.rsplit("/", 1)[-1]
        path.write_bytes(self.stack.s3.get_object(Bucket=self.stack.bucket, Key=key)["Body"].read())
        return path


def with_tables(stack: Stack, moto_server: str, monkeypatch: pytest.MonkeyPatch, scratch: Path) -> TablesStack:
    """``stack`` with a tables queue and function, a Glue database, and its loader and lookup wired to them."""
    glue = local_client(moto_server, "glue")
    database = f"fp_{uuid.uuid4().hex[:10]}"
    create_glue_database(glue, database)
    queue = create_tables_queue(stack.sqs, stack.bucket, visibility=2)
    for key, value in {
        "TABLES_QUEUE_URL": queue.url,
        "GLUE_DATABASE": database,
        "AWS_ENDPOINT_URL_GLUE": moto_server,
    }.items():
        monkeypatch.setenv(key, value)
    stack.loader, stack.lookup = loader_function(), lookup_function()
    stack.control.handler = stack.data.handler = stack.loader.handler
    worker = SqsWorker(stack.sqs, queue.url, queue.arn, tables_function(scratch=scratch).handler, timeout=120)
    return TablesStack(stack, glue, database, queue, worker)
