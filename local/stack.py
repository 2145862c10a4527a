"""The whole service on this machine: DynamoDB Local, moto's S3, SQS and Glue, the loader worker, the tables
function's worker and the HTTP front.

The handlers are the real ones, imported here after the environment points them at the local endpoints.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from fencepost.bootstrap.fetch_wiring import FetchFunction, fetch_function
from fencepost.bootstrap.loader_wiring import LoaderFunction, loader_function
from fencepost.bootstrap.lookup_wiring import LookupFunction, lookup_function
from fencepost.observability import FETCH_SERVICE, LOADER_SERVICE, LOOKUP_SERVICE
from local.capacity import CapacityFront
from local.child_workers import ChildWorkers
from local.config import Environ, StackConfig, environment
from local.dynamodb import DynamoDBLocal, MotoServer, create_table, local_client
from local.faults import REPORT_EVERY, Faults, parse_faults
from local.fronts import check_ports, start_services
from local.proxy import Proxy
from local.resources import Queue, Queues, create_bucket, create_queues
from local.storage import WorkingCopy, table_storage
from local.tables_worker import create_tables_resources, tables_worker
from local.worker import LambdaContext, SqsWorker, wake

CAPACITY_PATH = "/local/capacity"  # the emulator's last seconds, for the console (``capacity_heat``)


def every(stop: threading.Event, seconds: float, call: Callable[[], Any], what: str) -> None:
    """``call`` every ``seconds`` until ``stop`` is set, as a schedule would."""
    while not stop.wait(seconds):
        try:
            call()
        except Exception as error:  # the local S3 is going away at shutdown; else say why and go on
            if not stop.is_set():
                logging.getLogger("local").warning("%s failed: %s", what, error)


def stop_emulator(front: CapacityFront) -> None:
    """The capacity emulator stopped, its last second written down and its last summary said; a failure to (a closed
    terminal, a full disk) is logged, and the rest of the stack stops all the same."""
    try:
        front.stop()
    except Exception as error:
        logging.getLogger("local").warning("the capacity emulator's last second was not kept: %s", error)


def capacity_heat(front: CapacityFront | None) -> dict[str, Any]:
    """What the console shows of the capacity emulator: its last seconds, or how to turn it on."""
    if front is None:
        return {"emulated": False, "hint": "make run CAPACITY=on-demand-new emulates DynamoDB's partitions"}
    return front.heat()


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
        self.loader: LoaderFunction | None = None
        self.lookup: LookupFunction | None = None
        self.fetch: FetchFunction | None = None
        self.workers: dict[str, SqsWorker] = {}  # "control" and "data"
        self.tables_queue: Queue | None = None
        self.tables_worker: SqsWorker | None = None  # the tables function: each live version as Parquet, in Glue
        self._pollers: list[SqsWorker] = []  # a worker for each thread that long-polls its queue
        self.http: Any = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._environ = Environ()

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
        check_ports(config)
        spec = parse_faults(config.faults)  # a bad spec stops the start before anything runs
        self.faults = Faults(spec, config.faults_seed) if spec.any else None
        self.storage, db_path, log = table_storage(config.store, config.data_dir)
        (self.dynamodb, self.front, self.dynamodb_front), (self.moto, self.s3_front) = start_services(
            config, db_path, log, self.faults
        )
        self._create_resources()
        self._set_environment()
        # Each function wired as its handler module wires it, from the environment just set
        self.loader, self.lookup, self.fetch = loader_function(), lookup_function(), fetch_function()
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
            self.tables_worker = tables_worker(self.client("sqs"), self.tables_queue, config)
            self._poll(self.tables_worker, "tables-worker")
        if config.http_port is not None:
            from local.http import serve

            # The front wires a lookup handler of its own on its first request, as a new Lambda environment would
            wire = lambda: lookup_function().handler  # noqa: E731
            self.http = serve(wire, "127.0.0.1", config.http_port, {CAPACITY_PATH: lambda: capacity_heat(self.front)})
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
                self._poll(self.workers[lane], f"{lane}-worker-{number}")
        self._spawn(lambda: every(self._stop, config.sweep_every, self._sweep, "the sweep"), "sweep")
        if config.sources_every > 0:
            self._spawn(lambda: every(self._stop, config.sources_every, self.check_sources, "sources"), "sources")

    def _create_resources(self) -> None:
        assert self.dynamodb is not None
        ddb = self.client("dynamodb")
        if self.config.table not in ddb.list_tables()["TableNames"]:
            create_table(ddb, self.config.table)
        self.queues = create_queues(self.client("sqs"), self.config.queue, data_visibility=self.config.data_visibility)
        create_bucket(self.client("s3"), self.config.bucket, self.queues)
        self.tables_queue = create_tables_resources(self.client("sqs"), self.client("glue"), self.config.queue)

    def _set_environment(self) -> None:
        assert self.dynamodb is not None
        assert self.queues is not None
        tables = None if self.tables_queue is None else self.tables_queue.url
        self._environ.set(environment(self.config, self.dynamodb_endpoint, self.aws_endpoint, self.queues, tables))

    def _poll(self, worker: SqsWorker, name: str) -> None:
        """A thread serving ``worker`` until the stop, which wakes its long poll (``local.worker.wake``)."""
        self._spawn(lambda: worker.serve(self._stop), name)
        self._pollers.append(worker)

    def _spawn(self, target: Any, name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _deliver(self, event: dict[str, Any], context: Any) -> Any:
        assert self.loader is not None
        return self.loader.handler(event, context)

    def _sweep(self) -> None:
        assert self.loader is not None
        self.loader.handler(
            {"source": "aws.events", "detail-type": "Scheduled Event"}, LambdaContext(LOADER_SERVICE, 60)
        )

    def check_sources(self, event: dict[str, Any] | None = None) -> dict[str, Any]:
        """One round of the sources as the schedule starts it on AWS (or one dataset's: ``{"dataset": name}``)."""
        assert self.fetch is not None
        result: dict[str, Any] = self.fetch.handler(event or {}, LambdaContext(FETCH_SERVICE, 300))
        return result

    def stop(self) -> None:
        self._stop.set()
        if self.children is not None:
            self.children.stop()
        wake(self._pollers)
        for thread in self._threads:
            thread.join(timeout=15)
        if self.http is not None:
            self.http.close()
        if self.faults is not None:
            self.faults.report(always=True)
        for front in (self.s3_front, self.dynamodb_front):
            if front is not None:
                front.stop()
        if self.front is not None:
            stop_emulator(self.front)
        if self.moto is not None:
            self.moto.stop()
        if self.dynamodb is not None:
            self.dynamodb.stop()
        if self.storage is not None:
            self.storage.close()  # DynamoDB Local has exited: the last save is of a table at rest
        self._environ.restore()

    def __enter__(self) -> LocalStack:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    # -- helpers for tests and benchmarks ----------------------------------------------------------------------

    def wait_for(self, dataset: str, *, version: int | None = None, timeout: float = 600.0) -> dict[str, Any]:
        """Poll the dataset record (as the API serves it) until its latest load has finished."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            record = self.dataset(dataset)
            if record and record["status"] != "LOADING" and (version is None or record["load"]["version"] == version):
                return record
            time.sleep(0.2)
        raise TimeoutError(f"dataset {dataset!r} did not finish loading in {timeout} s")

    def dataset(self, name: str) -> dict[str, Any] | None:
        from local.http import one_event, to_event

        assert self.lookup is not None
        event = to_event("GET", f"/datasets/{name}", {}, b"", "127.0.0.1")
        response = one_event(self.lookup.handler, event, LambdaContext(LOOKUP_SERVICE, 10))  # the front's too
        return json.loads(response["body"]) if response["statusCode"] == 200 else None
