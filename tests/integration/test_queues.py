"""Control messages never wait behind data: a small dataset is served within seconds while another dataset's
load has hundreds of chunk messages queued. A worker long-polls its queue, and a stop ends the wait at once."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from local.dynamodb import local_client
from local.resources import queue_depth
from local.worker import LONG_POLL_SECONDS, SqsWorker, wake
from tests.support import V4_FILE, read_tsv
from tests.support.stacks import Stack

SMALL = "start,end,country\n10.0.0.0,10.0.0.255,AA\n10.0.1.0,10.0.1.255,BB\n10.0.2.0,10.0.2.255,CC\n"
TARGET_SECONDS = 15.0


def _tsv(rows: list[list[str]]) -> bytes:
    return "".join("\t".join(row) + "\n" for row in rows).encode()


def _phase(stack: Stack, name: str) -> str | None:
    status, body = stack.get(f"/datasets/{name}")
    return body["load"]["phase"] if status == 200 else None


def _status(stack: Stack, name: str) -> str | None:
    status, body = stack.get(f"/datasets/{name}")
    return body["status"] if status == 200 else None


def _serve(worker: SqsWorker, stop: threading.Event) -> None:
    while not stop.is_set():
        if not worker.poll(wait=0):
            time.sleep(0.05)


# 50 items a chunk: 12,000 rows make more than 200 chunk messages.
@pytest.mark.parametrize("stack", [{"CHUNK_ITEMS": "50"}], indirect=True)
def test_a_small_dataset_is_ready_within_seconds_behind_a_backlog_of_chunks(stack: Stack) -> None:
    # Given a big load planned, its chunks queued on the data queue and not yet written
    stack.put("big/ranges.tsv", _tsv(read_tsv(V4_FILE, 12_000)))
    stack.drain_until(lambda: _phase(stack, "big") == "writing")
    backlog = queue_depth(stack.sqs, stack.queues.data.url)
    assert backlog >= 200
    # And the loader consuming both queues, one invocation at a time on each (as in Lambda, with concurrency)
    stop = threading.Event()
    threads = [threading.Thread(target=_serve, args=(worker, stop), daemon=True) for worker in stack.workers]
    for thread in threads:
        thread.start()
    try:
        # When a 3-row file is dropped into another folder
        started = time.monotonic()
        stack.put("small/ranges.csv", SMALL)
        while (state := _status(stack, "small")) in (None, "LOADING"):
            assert time.monotonic() - started < 120, state
            time.sleep(0.1)
        elapsed = time.monotonic() - started
        left = queue_depth(stack.sqs, stack.queues.data.url)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    # Then it is served within the target, while most of the big load's chunks still wait
    print(f"small dataset READY after {elapsed:.1f} s; {left} of {backlog} chunk messages still queued")
    record = stack.dataset("small")
    assert (record["status"], record["version"], record["ranges"]) == ("READY", 1, 3)
    assert elapsed < TARGET_SECONDS
    assert left > backlog // 2
    status, body = stack.get("/lookup", ip="10.0.1.7", dataset="small")
    assert (status, body["data"]) == (200, {"country": "BB"})
    # And the big load still finishes
    stack.drain(timeout=600)
    assert stack.dataset("big")["status"] == "READY"


def test_a_worker_long_polls_and_its_stop_wakes_it_at_once_delivering_nothing(moto_server: str) -> None:
    sqs = local_client(moto_server, "sqs")
    url = sqs.create_queue(QueueName=f"wake{time.monotonic_ns()}")["QueueUrl"]
    delivered: list[dict[str, Any]] = []
    worker = SqsWorker(sqs, url, "arn:aws:sqs:us-east-1:000000000000:wake", lambda e, _: delivered.append(e))
    receives: list[float] = []
    sqs.meta.events.register("before-call.sqs.ReceiveMessage", lambda **_: receives.append(time.monotonic()))
    stop = threading.Event()
    pollers = [threading.Thread(target=worker.serve, args=(stop,), daemon=True) for _ in range(2)]
    for poller in pollers:
        poller.start()
    time.sleep(3)
    assert len(receives) == 2  # one poll each, waiting on the empty queue (20 s)
    sqs.send_message(QueueUrl=url, MessageBody='{"kind": "real"}')
    deadline = time.monotonic() + 10
    while (not delivered or queue_depth(sqs, url)) and time.monotonic() < deadline:
        time.sleep(0.05)  # until it was delivered and deleted, and its poller waits again
    time.sleep(0.5)
    assert [record["body"] for event in delivered for record in event["Records"]] == ['{"kind": "real"}']
    # The stop: set, then one wake-up message a poller
    started = time.monotonic()
    stop.set()
    wake([worker, worker])
    for poller in pollers:
        poller.join(timeout=LONG_POLL_SECONDS)
    assert not any(poller.is_alive() for poller in pollers)
    assert time.monotonic() - started < LONG_POLL_SECONDS / 4
    assert len(delivered) == 1  # the wake-ups were deleted, not delivered
    assert queue_depth(sqs, url) == 0
