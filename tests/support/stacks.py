"""The service running whole, for the tests that use it as it runs: ``Stack``, one isolated service in-process (its
own table, bucket and queues on DynamoDB Local and moto's server, the real loader and lookup handlers), built by the
``stack`` fixture of ``tests/integration/conftest.py``; and ``Running``, ``python -m local`` (what ``make run`` runs)
started in its own process by ``start`` and stopped with Ctrl-C by ``stop``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from fencepost.bootstrap.loader_wiring import LoaderFunction
from fencepost.bootstrap.lookup_wiring import LookupFunction
from local.dynamodb import local_client
from local.ports import free_port
from local.resources import Queues
from local.worker import SqsWorker, drain_all
from tests.support import ROOT, LambdaContext, event


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


class Running:
    def __init__(
        self, process: subprocess.Popen[str], api: str, aws_port: int, dynamodb_port: int, data_dir: Path
    ) -> None:
        self.process, self.data_dir = process, data_dir
        self.dynamodb_port, self.aws_port = dynamodb_port, aws_port
        aws = f"http://127.0.0.1:{aws_port}"
        self.api = api
        self.s3 = local_client(aws, "s3")

    def get(self, path: str, **params: str) -> tuple[int, Any]:
        response = requests.get(f"{self.api}{path}", params=params, timeout=10)
        return response.status_code, response.json()

    def wait_ready(
        self, dataset: str, version: int | None, timeout: float = 240, *, ranges: int | None = None
    ) -> dict[str, Any]:
        """The dataset's record once it is READY at ``version`` (None: any) serving ``ranges`` (None: any number)."""
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            status, body = self.get(f"/datasets/{dataset}")
            if status == 200:
                seen.append((body["status"], body["load"]["phase"], body["version"], body.get("ranges")))
                if (
                    body["status"] == "READY"
                    and version in (None, body["version"])
                    and ranges in (None, body.get("ranges"))
                ):
                    record: dict[str, Any] = body
                    return record
                assert body["status"] != "FAILED", body
            time.sleep(0.3)
        raise AssertionError(f"{dataset} was not READY at version {version} with {ranges} ranges: {seen[-5:]}")


def start(data_dir: Path, *options: str) -> Running:
    """``python -m local`` (what ``make run`` runs) on free ports, once its HTTP API answers."""
    ports = {"--http-port": free_port(), "--aws-port": free_port(), "--dynamodb-port": free_port()}
    command = [sys.executable, "-m", "local", "--data-dir", str(data_dir), *options]
    for flag, port in ports.items():
        command += [flag, str(port)]
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}"}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    api = f"http://127.0.0.1:{ports['--http-port']}"
    deadline = time.monotonic() + 90
    try:
        while True:
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            try:
                requests.get(f"{api}/datasets", timeout=2)
                break
            except (requests.ConnectionError, requests.Timeout):  # not up yet, or its first answer is slow
                assert time.monotonic() < deadline, "the local stack did not start"
                time.sleep(0.2)
    except BaseException:
        process.kill()  # with it, its children (they die with their parent: local.dynamodb)
        process.wait()
        raise
    return Running(process, api, ports["--aws-port"], ports["--dynamodb-port"], data_dir)


def stop(running: Running) -> str:
    running.process.send_signal(signal.SIGINT)
    output, _ = running.process.communicate(timeout=60)
    assert running.process.returncode == 0, output
    return output
