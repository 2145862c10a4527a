"""A stack's stop stops the capacity emulator itself, not only the proxy it sits on: the emulator's stop writes down
the second under way (``tests/integration/test_capacity_emulator.py`` shows what that stop does)."""

from __future__ import annotations

from typing import cast

from local.capacity import CapacityFront
from local.config import StackConfig
from local.stack import LocalStack


class _Front:
    def __init__(self) -> None:
        self.stops = 0

    def stop(self) -> None:
        self.stops += 1


def test_a_stack_s_stop_stops_its_capacity_emulator_once() -> None:
    stack = LocalStack(StackConfig.ephemeral())
    front = _Front()
    stack.front = cast("CapacityFront", front)

    stack.stop()

    assert front.stops == 1
