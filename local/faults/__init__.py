"""Faults injected on purpose into the local stack (``make run FAULTS=...``): what AWS does now and then, on demand.

- DynamoDB (``local.faults.dynamodb``): errors, latency spikes and connections reset mid-answer, injected by a hook
  of the front on ``DYNAMODB_PORT`` (the capacity emulator's front when ``CAPACITY`` is on, a plain one otherwise);
- S3 (``local.faults.s3``): ``SlowDown``/``InternalError`` and bodies cut short, by a hook of a front on
  ``AWS_PORT``, moto's server moving behind it;
- the loader (``local.child_workers``): the data lane's workers run as child processes, and one is killed with SIGKILL
  in the middle of writing a chunk, then restarted; SQS delivers the chunk again after its visibility timeout.

Every decision is drawn from streams seeded by ``FAULTS_SEED`` (``dice``), and what was injected is counted:
``summary()`` is printed every ``REPORT_EVERY`` seconds while it changes, and when the stack stops. ``change`` sets
other rates while the stack runs, on the fronts it started with.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Final

from local.faults.dice import Dice
from local.faults.dynamodb import DynamoDBFaults
from local.faults.s3 import S3Faults
from local.faults.spec import FaultSpec, FaultSpecError, parse_faults

__all__ = ["REPORT_EVERY", "FaultSpec", "FaultSpecError", "Faults", "parse_faults"]

REPORT_EVERY: Final = 10.0


class Faults:
    def __init__(self, spec: FaultSpec, seed: int | None = None, say: Callable[[str], None] = print) -> None:
        self.spec = spec
        self.seed = seed if seed is not None else random.SystemRandom().randrange(1_000_000)
        self.dice = Dice(self.seed)
        self.say = say
        # Off while the stack creates its table, bucket and queues: a fault there would stop the start, not test it.
        self.armed = threading.Event()
        self._lock = threading.Lock()
        self._kills_armed = 0
        self._reported: dict[str, int] = {}
        self._hooks: list[DynamoDBFaults | S3Faults] = []

    def dynamodb_hook(self) -> DynamoDBFaults:
        hook = DynamoDBFaults(self.spec, self.dice, self.armed.is_set)
        self._hooks.append(hook)
        return hook

    def s3_hook(self) -> S3Faults:
        hook = S3Faults(self.spec, self.dice, self.armed.is_set)
        self._hooks.append(hook)
        return hook

    def change(self, spec: FaultSpec, seed: int | None = None) -> None:
        """Inject ``spec`` from now on, its decisions drawn from ``seed`` (this one's when None) and counted from zero.
        Which fronts and workers a stack has was decided by the spec it started with: a spec whose faults need a
        front this one did not hand out, or other loader kills, is refused (``FaultSpecError``)."""
        kinds = {type(hook) for hook in self._hooks}
        if (spec.dynamodb and DynamoDBFaults not in kinds) or (spec.s3 and S3Faults not in kinds):
            raise FaultSpecError(f"{spec.describe()}: this stack started without the front those faults need")
        if spec.loader_kill != self.spec.loader_kill:
            raise FaultSpecError("loader.kill is set when the stack starts: its workers are processes only then")
        with self._lock:
            self.spec, self.seed = spec, self.seed if seed is None else seed
            self.dice = Dice(self.seed)
            for hook in self._hooks:
                hook.spec, hook.dice = spec, self.dice
            self._reported = {}

    # -- the loader's kills --------------------------------------------------------------------------------------

    def next_kill(self, batches_per_chunk: int) -> int:
        """For a worker process about to start: after which BatchWriteItem of a chunk it is killed (0: never).
        One worker at a time is armed, while kills are left."""
        with self._lock:
            left = self.spec.loader_kill - self.dice.counts().get("loader.kill", 0) - self._kills_armed
            if not self.armed.is_set() or left <= 0 or self._kills_armed:
                return 0
            self._kills_armed += 1
        return self.dice.pick("loader.kill", 1, max(1, batches_per_chunk // 2))

    def worker_ended(self, *, killed: bool, armed: bool) -> None:
        with self._lock:
            self._kills_armed -= int(armed)
        if killed:
            self.dice.count("loader.kill")

    # -- what was injected ---------------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        return self.dice.counts()

    def summary(self) -> str:
        counts, spec = self.counts(), self.spec
        parts = []
        if spec.dynamodb:
            parts.append(
                f"DynamoDB {counts.get('dynamodb.requests', 0):,} requests: "
                f"{counts.get('dynamodb.error.500', 0):,} InternalServerError, "
                f"{counts.get('dynamodb.error.503', 0):,} ServiceUnavailable, "
                f"{counts.get('dynamodb.reset', 0):,} resets, {counts.get('dynamodb.slow', 0):,} slow"
            )
        if spec.s3:
            parts.append(
                f"S3 {counts.get('s3.requests', 0):,} requests: {counts.get('s3.error.503', 0):,} SlowDown, "
                f"{counts.get('s3.error.500', 0):,} InternalError, {counts.get('s3.cut', 0):,} cut bodies"
            )
        if spec.loader_kill:
            parts.append(f"loader {counts.get('loader.kill', 0)} of {spec.loader_kill} kills")
        return f"faults injected (FAULTS_SEED={self.seed}): " + "; ".join(parts)

    def report(self, *, always: bool = False) -> None:
        """Say the summary if anything was injected since it was last said (or ``always``)."""
        counts = self.counts()
        if always or counts != self._reported:
            self._reported = counts
            self.say(f"[{time.strftime('%H:%M:%S')}] {self.summary()}")
