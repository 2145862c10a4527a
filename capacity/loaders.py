"""Loaders as the simulation runs them: the study's single loop, and this project's loader, with either policy.

- ``StudyLoop`` [study-1]: one loop putting items through boto3's ``batch_writer``: each put appends to a buffer,
  which is flushed 25 at a time whenever it holds 25; items sent back unprocessed go to the end of the buffer, and
  a call refused whole is retried by botocore after 25 ms, doubling ([facts] ``BOTO_LEGACY_*``). One call at a
  time, each taking ``STUDY_CALL_SECONDS``.
- ``Invocations``: this project's loader on AWS: the build's chunks on the data queue, taken by up to ``workers``
  invocations at once, each writing its chunk from ``threads`` threads. ``policy="adaptive"`` is the writer of
  today (``fencepost.aws.dynamo.pacing``: one pacer per container, refused keys waiting while others go on);
  ``policy="backoff"``: the writer before it (each thread retries its own batch after an exponential pause with
  full jitter, 50 ms doubling up to 5 s, and never slows down otherwise).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from capacity import facts
from capacity.simulation import CallLog, Simulation, Write
from fencepost.aws.dynamo.pacing import Backoff, Pacer, Work, table_level

BATCH = 25


class StudyLoop:
    def __init__(self, items: Sequence[Write], *, call_seconds: float = facts.STUDY_CALL_SECONDS) -> None:
        self.source: Iterator[Write] = iter(items)
        self.buffer: deque[Write] = deque()
        self.call_seconds = call_seconds
        self.log = CallLog()
        self.exhausted = False
        self.attempt = 0

    def step(self, sim: Simulation) -> float | None:
        # put_item until the buffer holds 25 (once it does, one more put each time makes it flush again)
        while len(self.buffer) < BATCH and not self.exhausted:
            item = next(self.source, None)
            if item is None:
                self.exhausted = True
            else:
                self.buffer.append(item)
        if not self.buffer:
            return None
        if len(self.buffer) >= BATCH and not self.exhausted:
            item = next(self.source, None)
            if item is None:
                self.exhausted = True
            else:
                self.buffer.append(item)
        batch = [self.buffer.popleft() for _ in range(min(BATCH, len(self.buffer)))]
        refused, reasons = sim.send(batch, self.log)
        if reasons and self.attempt < facts.BOTO_LEGACY_ATTEMPTS:  # refused whole: botocore sends it again
            self.buffer.extendleft(reversed(batch))
            pause = facts.BOTO_LEGACY_BASE_SECONDS * 2.0**self.attempt
            self.attempt += 1
            return sim.now + self.call_seconds + pause
        self.attempt = 0
        self.buffer.extend(refused)
        return sim.now + self.call_seconds


@dataclass(slots=True)
class _Invocation:
    """One loader container: its pacer lives as long as it does; it writes one chunk at a time."""

    pacer: Pacer
    keys: Backoff
    work: Work[Write] | None = None
    threads_left: int = 0


@dataclass(slots=True)
class Invocations:
    """The data queue's chunks and the loader invocations that write them."""

    chunks: deque[list[Write]]
    workers: int
    threads: int
    policy: str = "adaptive"
    call_seconds: float = facts.STUDY_CALL_SECONDS
    chunk_overhead: float = 0.05  # receiving a message and starting on it
    ceiling: float = 0.0  # writeRate, per invocation (0: none)
    seed: int = 7
    log: CallLog = field(default_factory=CallLog)
    busy_seconds: float = 0.0  # invocations' time with a chunk, summed: what Lambda bills

    def start(self, sim: Simulation) -> None:
        rng = random.Random(self.seed)
        for _ in range(self.workers):
            container = _Invocation(Pacer(ceiling=self.ceiling, now=sim.now), Backoff(random.Random(rng.random())))
            sim.start(_Taker(self, container, rng), sim.now)


@dataclass(slots=True)
class _Taker:
    """An invocation between chunks: takes the next one and starts its threads."""

    loader: Invocations
    container: _Invocation
    rng: random.Random
    started: float = 0.0

    def step(self, sim: Simulation) -> float | None:
        if not self.loader.chunks:
            return None
        chunk = self.loader.chunks.popleft()
        self.started = sim.now
        self.container.work = Work(chunk, lambda item: item.key)
        self.container.threads_left = self.loader.threads
        for _ in range(self.loader.threads):
            thread_type = _AdaptiveThread if self.loader.policy == "adaptive" else _BackoffThread
            sim.start(thread_type(self, self.rng), sim.now + self.loader.chunk_overhead)
        return None

    def thread_done(self, sim: Simulation) -> None:
        self.container.threads_left -= 1
        if self.container.threads_left == 0:
            self.loader.busy_seconds += sim.now - self.started
            sim.start(self, sim.now)


@dataclass(slots=True)
class _AdaptiveThread:
    taker: _Taker
    rng: random.Random
    batch: list[Write] = field(default_factory=list)
    sent: float = 0.0

    def step(self, sim: Simulation) -> float | None:
        container, loader = self.taker.container, self.taker.loader
        work = container.work
        assert work is not None
        if self.batch:  # the call made at the last step has come back
            refused, reasons = sim.send(self.batch, loader.log)
            container.keys.accepted(item.key for item in self.batch if item not in refused)
            if refused:
                share = len(refused) / len(self.batch)
                written = len(self.batch) - len(refused)
                whole = table_level(reasons)
                container.pacer.refused(sim.now, share=share, whole_table=whole, sent=self.sent, items=written)
                container.keys.refused([item.key for item in refused], sim.now)
                work.defer(refused, container.keys, sim.now)
            else:
                container.pacer.accepted(sim.now, len(self.batch))
            work.finished(len(self.batch))
            self.batch = []
        batch, wait = work.take(BATCH, sim.now)
        if not batch:
            if wait is None:
                self.taker.thread_done(sim)
                return None
            return sim.now + min(wait, 0.25)
        self.batch = batch
        pause = container.pacer.reserve(len(batch), sim.now)
        self.sent = sim.now + pause
        return sim.now + pause + loader.call_seconds


@dataclass(slots=True)
class _BackoffThread:
    taker: _Taker
    rng: random.Random
    batch: list[Write] = field(default_factory=list)
    attempt: int = 0

    def step(self, sim: Simulation) -> float | None:
        loader, container = self.taker.loader, self.taker.container
        work = container.work
        assert work is not None
        if not self.batch:
            batch, _ = work.take(BATCH, sim.now)
            if not batch:
                self.taker.thread_done(sim)
                return None
            self.batch = batch
        refused, _ = sim.send(self.batch, loader.log)
        work.finished(len(self.batch) - len(refused))
        self.batch = list(refused)
        if refused:
            pause = self.rng.uniform(0, min(5.0, 0.05 * 2.0**self.attempt))
            self.attempt += 1
            return sim.now + loader.call_seconds + pause
        self.attempt = 0
        return sim.now + loader.call_seconds
