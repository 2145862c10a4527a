"""The data lane's workers as child processes, so that one can really be killed (``FAULTS=loader.kill=N``).

Without that fault, every worker is a thread of ``make run``'s process (``local.stack``). With it, each data-lane
worker is ``python -m local.child_workers``: a process that imports the loader, polls the data queue and invokes
the handler as Lambda's event source does (``local.worker``). A worker armed by the faults sends itself SIGKILL
right after its n-th BatchWriteItem of a chunk (n drawn from the seed): the kill always lands mid-chunk, with part
of the chunk's items written, and nothing of the process runs after it (no handler, no ``finally``). The parent
sees it die, counts the kill and starts a new worker; the chunk's message, received and never deleted, is
delivered again once the data queue's visibility timeout has passed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from local.config import ROOT
from local.dynamodb import die_with_parent, local_client
from local.faults import Faults
from local.worker import SqsWorker

BATCH = 25  # items a BatchWriteItem carries


class ChildWorkers:
    """``count`` worker processes on the data queue, each started again when it ends (until ``stop``).

    ``counted``: the parent's worker for that queue, whose invocation and busy-time counters the children add to.
    """

    def __init__(
        self,
        counted: SqsWorker,
        sqs_endpoint: str,
        count: int,
        faults: Faults | None,
        *,
        chunk_items: int,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.counted, self.sqs_endpoint, self.count, self.faults = counted, sqs_endpoint, count, faults
        self.batches_per_chunk = max(1, -(-chunk_items // BATCH))
        self._said = say  # None: where the faults say what they did (``Faults.say``), else the terminal
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> ChildWorkers:
        for slot in range(self.count):
            thread = threading.Thread(target=self._keep, args=(slot,), name=f"data-process-{slot}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        for process in list(self.processes.values()):
            if process.poll() is None:
                process.terminate()  # it finishes the invocation under way (its poll waits at most a second)
        for thread in self._threads:
            thread.join(timeout=20)

    def say(self, text: str) -> None:
        (self._said or (self.faults.say if self.faults else print))(text)

    def _keep(self, slot: int) -> None:
        while not self._stop.is_set():
            kill_at = self.faults.next_kill(self.batches_per_chunk) if self.faults else 0
            started = time.monotonic()
            returncode = self._run(slot, kill_at)
            killed = returncode == -signal.SIGKILL
            if self.faults is not None:
                self.faults.worker_ended(killed=killed, armed=bool(kill_at))
            if killed and kill_at:
                self.say(
                    f"[{time.strftime('%H:%M:%S')}] fault: a loader worker was killed (SIGKILL) after BatchWriteItem "
                    f"{kill_at} of a chunk; a new one starts, and the chunk comes back after the queue's visibility "
                    "timeout"
                )
            elif not self._stop.is_set() and time.monotonic() - started < 5:
                self.say(f"a loader worker process ended at once (code {returncode}): starting it again in 2 s")
                self._stop.wait(2)

    def _run(self, slot: int, kill_at: int) -> int:
        """One worker process, until it ends; its invocations counted as they end."""
        read, write = os.pipe()
        command = [sys.executable, "-m", "local.child_workers", "--events-fd", str(write), "--kill-at", str(kill_at)]
        command += ["--sqs", self.sqs_endpoint, "--queue-url", self.counted.queue_url]
        command += ["--queue-arn", self.counted.queue_arn, "--timeout", str(self.counted.timeout)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "lambdas"), str(ROOT)])}
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            pass_fds=(write,),
            preexec_fn=die_with_parent,  # noqa: PLW1509 - only a call into libc (local.dynamodb)
        )
        os.close(write)
        self.processes[slot] = process
        with os.fdopen(read, "r") as events:
            for line in events:  # ends when the process does, however it ends
                word, _, value = line.partition(" ")
                if word == "done":
                    self.counted.add_invocation(float(value))
        return process.wait()


# -- the child ---------------------------------------------------------------------------------------------------


def _kinds(event: dict[str, Any]) -> set[str]:
    kinds = set()
    for record in event.get("Records", []):
        try:
            kinds.add(str(json.loads(record["body"]).get("kind")))
        except (ValueError, AttributeError):
            continue
    return kinds


def child(args: argparse.Namespace) -> int:
    from fencepost.bootstrap.loader_wiring import loader_function

    loader = loader_function()  # from the environment the parent gave: the stack's endpoints

    events = os.fdopen(args.events_fd, "w", buffering=1)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    writing = {"chunk": False, "batches": 0}
    lock = threading.Lock()

    def after_batch(**_: Any) -> None:
        with lock:
            if not writing["chunk"]:
                return
            writing["batches"] += 1
            if writing["batches"] >= args.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

    if args.kill_at:
        loader.bulk.client.meta.events.register("after-call.dynamodb.BatchWriteItem", after_batch)

    def invoke(event: dict[str, Any], context: Any) -> Any:
        with lock:
            writing.update(chunk="chunk" in _kinds(event), batches=0)
        started = time.monotonic()
        try:
            return loader.handler(event, context)
        finally:
            with lock:
                writing["chunk"] = False
            events.write(f"done {time.monotonic() - started:.6f}\n")

    worker = SqsWorker(local_client(args.sqs, "sqs"), args.queue_url, args.queue_arn, invoke, timeout=args.timeout)
    worker.serve(stop, wait=1)  # a SIGTERM sets stop: the process ends within a second of it
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.child_workers", description=__doc__)
    parser.add_argument("--events-fd", type=int, required=True)
    parser.add_argument("--kill-at", type=int, default=0, help="SIGKILL after this BatchWriteItem of a chunk (0: no)")
    parser.add_argument("--sqs", required=True)
    parser.add_argument("--queue-url", required=True)
    parser.add_argument("--queue-arn", required=True)
    parser.add_argument("--timeout", type=float, default=900.0)
    return child(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
