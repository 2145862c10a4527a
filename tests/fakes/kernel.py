"""What every fake shares: a simulated clock, a fault injector that kills the N-th port call, the item store of
the one table, and a telemetry that records what the loader logs and counts."""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from aws_lambda_powertools.metrics import MetricUnit

from tests.faults import Killed

P = ParamSpec("P")
R = TypeVar("R")

EPOCH = 1_800_000_000.0  # the simulated clock starts here (epoch seconds)
MONOTONIC_OFFSET = 1_799_000_000.0  # monotonic() is the clock minus this: another origin, the same pace


class Clock:
    """Simulated time: it moves only when the harness says (a delayed message becomes due, a sweep is due)."""

    def __init__(self, start: float = EPOCH) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now - MONOTONIC_OFFSET

    def advance(self, seconds: float) -> None:
        self.now += max(0.0, seconds)

    def advance_to(self, moment: float) -> None:
        self.now = max(self.now, moment)


class Faults:
    """Counts every port call of every fake; fails the ``crash_at``-th, once, before or after its effect.

    The failure is ``Killed`` (the invocation dies: nothing catches it) unless another error is given, such as
    ``StoreUnavailable`` (a passing fault the loader handles). ``trace`` names every step since ``arm``.
    """

    def __init__(self) -> None:
        self.arm(None)

    def arm(self, crash_at: int | None, *, after: bool = False, error: type[BaseException] = Killed) -> None:
        self.steps, self.crash_at, self.after, self.error = 0, crash_at, after, error
        self.killed: str | None = None  # the step that failed: "<number> <Fake.method>"
        self.trace: list[str] = []
        self.hook: Callable[[str], None] | None = None  # called before each step (to run something concurrently)

    def before(self, name: str) -> int:
        if self.hook is not None:
            self.hook(name)
        self.steps += 1
        self.trace.append(name)
        if not self.after:
            self._maybe_fail(self.steps, name)
        return self.steps

    def done(self, step: int, name: str) -> None:
        if self.after:
            self._maybe_fail(step, name)

    def point(self, name: str) -> None:
        """A step inside a port method (the second write of a two-write transition)."""
        self.done(self.before(name), name)

    def _maybe_fail(self, step: int, name: str) -> None:
        if step == self.crash_at and self.killed is None:
            self.killed = f"{step} {name}{' (after its effect)' if self.after else ''}"
            raise self.error(f"failed at step {self.killed}")


class Faulty(Protocol):
    faults: Faults


F = TypeVar("F", bound=Faulty)


def port(method: Callable[Concatenate[F, P], R]) -> Callable[Concatenate[F, P], R]:
    """A port method: one step of the loader, which ``Faults`` may kill before or after its effect."""
    name = method.__qualname__

    @functools.wraps(method)
    def step(self: F, /, *args: P.args, **kwargs: P.kwargs) -> R:
        number = self.faults.before(name)
        result = method(self, *args, **kwargs)
        self.faults.done(number, name)
        return result

    return step


def detached(value: R) -> R:
    """A copy of a record that shares nothing mutable with it (as a deep copy, but frozen records are shared)."""
    if isinstance(value, list):
        return [detached(element) for element in value]  # type: ignore[return-value]
    if isinstance(value, set):
        return set(value)  # type: ignore[return-value]
    if isinstance(value, dict):
        return {key: detached(element) for key, element in value.items()}  # type: ignore[return-value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if getattr(value, "__dataclass_params__").frozen:  # noqa: B009 - not in the stubs
            return value
        changes = {spec.name: detached(getattr(value, spec.name)) for spec in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    return value


class Store:
    """The one table's items that are not dataset records, by partition key then sort key."""

    def __init__(self) -> None:
        self.partitions: dict[str, dict[int, Any]] = {}

    def get(self, pk: str, sk: int) -> Any:
        return self.partitions.get(pk, {}).get(sk)

    def put(self, pk: str, sk: int, value: Any) -> None:
        self.partitions.setdefault(pk, {})[sk] = value

    def delete(self, pk: str, sk: int) -> None:
        partition = self.partitions.get(pk)
        if partition is not None:
            partition.pop(sk, None)
            if not partition:
                del self.partitions[pk]

    def sort_keys(self, pk: str) -> list[int]:
        return sorted(self.partitions.get(pk, {}))

    def with_prefix(self, prefix: str) -> dict[tuple[str, str], Any]:
        """Every item whose PK starts with ``prefix``, keyed as ``tests.faults.expected_items`` keys them."""
        return {
            (pk, str(sk)): value
            for pk, partition in self.partitions.items()
            if pk.startswith(prefix)
            for sk, value in partition.items()
        }


class FakeLogger:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []  # (level, message, extra)
        self.errors: list[BaseException] = []  # what was logged with ``exception``: errors the loader caught

    def info(self, msg: object, *args: Any, **kwargs: Any) -> None:
        self.lines.append(("info", str(msg), dict(kwargs.get("extra", {}))))

    def warning(self, msg: object, *args: Any, **kwargs: Any) -> None:
        self.lines.append(("warning", str(msg), dict(kwargs.get("extra", {}))))

    def exception(self, msg: object, *args: Any, **kwargs: Any) -> None:
        self.lines.append(("error", str(msg), dict(kwargs.get("extra", {}))))
        error = sys.exc_info()[1]
        if error is not None:
            self.errors.append(error)

    def messages(self, level: str) -> list[str]:
        return [message for logged, message, _ in self.lines if logged == level]


class FakeMetrics:
    def __init__(self) -> None:
        self.totals: dict[str, float] = {}

    def add_metric(self, name: str, unit: MetricUnit, value: float) -> None:
        self.totals[name] = self.totals.get(name, 0) + value


class FakeTelemetry:
    def __init__(self) -> None:
        self.logger = FakeLogger()
        self.metrics = FakeMetrics()
