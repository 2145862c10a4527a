"""The whole service on this machine: DynamoDB Local, moto's S3 and SQS, the loader worker and the HTTP front.

The handlers are the real ones, imported here after the environment points them at the local endpoints.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from local.capacity import CapacityFront
from local.child_workers import ChildWorkers
from local.config import DISK, MEMORY, StackConfig, environment
from local.dynamodb import DynamoDBLocal, LocalStackError, MotoServer, create_table, local_client, port_in_use
from local.faults import REPORT_EVERY, Faults, parse_faults
from local.fronts import start_dynamodb, start_moto
from local.proxy import Proxy
from local.resources import Queues, create_bucket, create_queues
from local.storage import MEMORY_ROOT, WorkingCopy
from local.worker import LambdaContext, SqsWorker

CAPACITY_PATH = "/local/capacity"  # the emulator's last seconds, for the console (``LocalStack.capacity_heat``)


def every(stop: threading.Event, seconds: float, call: Callable[[], Any], what: str) -> None:
    """``call`` every ``seconds`` until ``stop`` is set, as a schedule would."""
    while not stop.wait(seconds):
        try:
            call()
        except Exception as error:  # the local S3 is going away at shutdown; else say why and go on
            if not stop.is_set():
                logging.getLogger("local").warning("%s failed: %s", what, error)


class LocalStack:
    def __init__(self, config: StackConfig) -> None:
        self.config = config
        self.dynamodb: DynamoDBLocal | None = None
        self.front: CapacityFront | None = None  # the capacity emulator
        self.faults: Faults | None = None
        # What listens on the ports clients use, in front of DynamoDB Local and moto's server, when anything does
        # (the capacity emulator, faults): None when the clients talk to them directly.
        self.dynamodb_front: Proxy | None = None
        self.s3_front: Proxy | None = None
        self.children: ChildWorkers | None = None  # the data lane's workers as processes (FAULTS=loader.kill=N)
        self.storage: WorkingCopy | None = None
        self.moto: MotoServer | None = None
        self.queues: Queues | None = None
        self.loader: ModuleType | None = None
        self.lookup: ModuleType | None = None
        self.fetch: ModuleType | None = None
        self.workers: dict[str, SqsWorker] = {}  # "control" and "data"
        self.http: Any = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._saved_env: dict[str, str | None] = {}

    # -- endpoints ---------------------------------------------------------------------------------------------

    @property
    def aws_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.config.aws_port}"

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.config.http_port}"

    @property
    def dynamodb_endpoint(self) -> str:
        """Where every DynamoDB client goes: the front when there is one, else DynamoDB Local."""
        if self.dynamodb_front is not None:
            return self.dynamodb_front.endpoint
        assert self.dynamodb is not None
        return self.dynamodb.endpoint

    def client(self, service: str) -> Any:
        endpoint = self.dynamodb_endpoint if service == "dynamodb" and self.dynamodb else self.aws_endpoint
        return local_client(endpoint, service)

    def direct_client(self, service: str) -> Any:
        """A client past every front (no fault, no capacity model): for the stack's own work and for checks."""
        assert self.dynamodb is not None
        assert self.moto is not None
        return local_client(self.dynamodb.endpoint if service == "dynamodb" else self.moto.endpoint, service)

    # -- life cycle --------------------------------------------------------------------------------------------

    def start(self, *, worker: bool = True) -> LocalStack:
        config = self.config
        for port, what in ((config.dynamodb_port, "DynamoDB Local"), (config.aws_port, "the local S3/SQS")):
            if port_in_use(port):
                raise LocalStackError(f"port {port} (for {what}) is busy: stop what uses it or choose another port")
        if config.http_port is not None and port_in_use(config.http_port):
            raise LocalStackError(f"port {config.http_port} (for the HTTP API) is busy: choose another port")
        spec = parse_faults(config.faults)  # a bad spec stops the start before anything runs
        self.faults = Faults(spec, config.faults_seed) if spec.any else None
        self._start_dynamodb()
        self.moto, self.s3_front = start_moto(config, self.faults)
        self._create_resources()
        self._set_environment()
        self.loader = self._import("fencepost.handlers.loader")
        self.lookup = self._import("fencepost.handlers.lookup")
        self.fetch = self._import("fencepost.handlers.fetch")
        assert self.queues is not None
        lanes = {"control": (self.queues.control, config.control_workers), "data": (self.queues.data, config.workers)}
        for lane, (queue, _) in lanes.items():
            self.workers[lane] = SqsWorker(
                self.client("sqs"), queue.url, queue.arn, self._deliver, timeout=config.loader_timeout
            )
        faults = self.faults
        if faults is not None:  # the stack is set up: from now on, faults are injected
            faults.armed.set()
            self._spawn(lambda: every(self._stop, REPORT_EVERY, faults.report, "faults"), "faults")
        if worker:
            self._start_workers(lanes)
        if config.http_port is not None:
            from local.http import serve

            self.http = serve(self.lookup.handler, "127.0.0.1", config.http_port, {CAPACITY_PATH: self.capacity_heat})
        return self

    def _start_workers(self, lanes: dict[str, tuple[Any, int]]) -> None:
        """A thread per worker, as many as each lane's concurrency; the data lane's are processes when a fault
        kills them (``local.child_workers``)."""
        config = self.config
        for lane, (_, count) in lanes.items():
            if lane == "data" and self.faults is not None and self.faults.spec.loader_kill:
                chunk_items = int(config.loader_env.get("CHUNK_ITEMS", "5000"))
                self.children = ChildWorkers(
                    self.workers[lane], self.aws_endpoint, count, self.faults, chunk_items=chunk_items
                ).start()
                continue
            for number in range(count):
                self._spawn(lambda lane=lane: self._work(self.workers[lane]), f"{lane}-worker-{number}")
        self._spawn(lambda: every(self._stop, config.sweep_every, self._sweep, "the sweep"), "sweep")
        if config.sources_every > 0:
            self._spawn(lambda: every(self._stop, config.sources_every, self.check_sources, "sources"), "sources")

    def capacity_heat(self) -> dict[str, Any]:
        """What the console shows of the capacity emulator: its last seconds, or how to turn it on."""
        if self.front is None:
            return {"emulated": False, "hint": "make run CAPACITY=on-demand-new emulates DynamoDB's partitions"}
        return self.front.heat()

    def _start_dynamodb(self) -> None:
        """DynamoDB Local (its table in memory or on disk), and the front before it if asked (``local.fronts``)."""
        config = self.config
        db_path, log = None, None
        if config.data_dir:
            config.data_dir.mkdir(parents=True, exist_ok=True)
            log = config.data_dir / "dynamodb.log"
        if config.store not in (MEMORY, DISK):
            raise LocalStackError(f"the table is kept in {MEMORY!r} or on {DISK!r}, not {config.store!r}")
        if config.store == DISK:
            if config.data_dir is None:
                raise LocalStackError("a table kept on disk needs a data dir")
            self.storage = WorkingCopy(config.data_dir / "dynamodb", MEMORY_ROOT)
            db_path = self.storage.open()
        self.dynamodb, self.front, self.dynamodb_front = start_dynamodb(config, db_path, log, self.faults)

    def _create_resources(self) -> None:
        assert self.dynamodb is not None
        ddb = self.client("dynamodb")
        if self.config.table not in ddb.list_tables()["TableNames"]:
            create_table(ddb, self.config.table)
        self.queues = create_queues(self.client("sqs"), self.config.queue, data_visibility=self.config.data_visibility)
        create_bucket(self.client("s3"), self.config.bucket, self.queues)

    def _set_environment(self) -> None:
        assert self.dynamodb is not None
        assert self.queues is not None
        env = environment(self.config, self.dynamodb_endpoint, self.aws_endpoint, self.queues)
        for name, value in env.items():
            self._saved_env.setdefault(name, os.environ.get(name))
            os.environ[name] = value

    @staticmethod
    def _import(name: str) -> ModuleType:
        sys.modules.pop(name, None)
        return importlib.import_module(name)

    def _spawn(self, target: Any, name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _deliver(self, event: dict[str, Any], context: Any) -> Any:
        assert self.loader is not None
        return self.loader.handler(event, context)

    def _work(self, worker: SqsWorker) -> None:
        while not self._stop.is_set():
            try:
                worker.poll(wait=1)
            except Exception:  # the local S3/SQS is going away at shutdown
                if not self._stop.is_set():
                    time.sleep(0.5)

    def _sweep(self) -> None:
        assert self.loader is not None
        self.loader.handler(
            {"source": "aws.events", "detail-type": "Scheduled Event"}, LambdaContext("fencepost-loader", 60)
        )

    def check_sources(self, event: dict[str, Any] | None = None) -> dict[str, Any]:
        """One round of the sources as the schedule starts it on AWS (or one dataset's: ``{"dataset": name}``)."""
        assert self.fetch is not None
        result: dict[str, Any] = self.fetch.handler(event or {}, LambdaContext("fencepost-fetch", 300))
        return result

    def stop(self) -> None:
        self._stop.set()
        if self.children is not None:
            self.children.stop()
        for thread in self._threads:
            thread.join(timeout=15)
        if self.http is not None:
            self.http.shutdown()
            self.http.server_close()
        if self.faults is not None:
            self.faults.report(always=True)
        for front in (self.s3_front, self.dynamodb_front):
            if front is not None:
                front.stop()
        if self.moto is not None:
            self.moto.stop()
        if self.dynamodb is not None:
            self.dynamodb.stop()
        if self.storage is not None:
            self.storage.close()  # DynamoDB Local has exited: the last save is of a table at rest
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    def __enter__(self) -> LocalStack:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    # -- helpers for tests and benchmarks ----------------------------------------------------------------------

    def wait_for(self, dataset: str, *, version: int | None = None, timeout: float = 600.0) -> dict[str, Any]:
        """Poll the dataset record (as the API serves it) until its latest load has finished."""
        assert self.lookup is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            record = self.dataset(dataset)
            if record and record["status"] != "LOADING" and (version is None or record["load"]["version"] == version):
                return record
            time.sleep(0.2)
        raise TimeoutError(f"dataset {dataset!r} did not finish loading in {timeout} s")

    def dataset(self, name: str) -> dict[str, Any] | None:
        from local.http import to_event

        assert self.lookup is not None
        event = to_event("GET", f"/datasets/{name}", {}, b"", "127.0.0.1")
        response = self.lookup.handler(event, LambdaContext("fencepost-lookup", 10))
        return json.loads(response["body"]) if response["statusCode"] == 200 else None
