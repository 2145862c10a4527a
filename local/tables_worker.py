"""The tables function under ``make run``: its queue and the Glue database on moto's server, created as the CDK
stack creates them, and a worker that delivers the queue's messages to it one at a time, in-process."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any

from fencepost.declared import TABLES
from local.config import StackConfig
from local.resources import Queue, create_glue_database, create_tables_queue
from local.worker import SqsWorker


def create_tables_resources(sqs: Any, glue: Any, name: str) -> Queue:
    """``<name>-tables`` with its dead-letter queue, and the Glue database (moto keeps nothing: new at each start)."""
    queue = create_tables_queue(sqs, name)
    create_glue_database(glue, TABLES["glue_database"].default)
    return queue


def tables_worker(sqs: Any, queue: Queue | None, config: StackConfig) -> SqsWorker:
    """The tables function wired from the environment (pyarrow imported now), writing its files under the data
    folder before each upload: a worker for one thread to serve."""
    from fencepost.bootstrap.tables_wiring import tables_function

    assert queue is not None, "the tables queue is created first (create_tables_resources)"
    folder = config.data_dir
    scratch = Path(tempfile.mkdtemp(prefix="fencepost-tables-")) if folder is None else folder / "tables-scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    handler = tables_function(scratch=scratch).handler
    worker = SqsWorker(sqs, queue.url, queue.arn, handler, timeout=config.loader_timeout)
    if folder is None:  # a stack in memory keeps nothing: its scratch goes with its worker, or at the latest at exit
        weakref.finalize(worker, shutil.rmtree, scratch, ignore_errors=True)
    return worker
