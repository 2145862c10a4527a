"""A stack's stop stops the capacity emulator itself, not only the proxy it sits on: the emulator's stop writes down
the second under way (``tests/integration/test_capacity_emulator.py`` shows what that stop does)."""

from __future__ import annotations

from typing import cast

import pytest

from local.capacity import CapacityFront
from local.config import StackConfig
from local.dynamodb import DynamoDBLocal
from local.stack import LocalStack


class _Front:
    def __init__(self, failure: Exception | None = None) -> None:
        self.stops, self.failure = 0, failure

    def stop(self) -> None:
        self.stops += 1
        if self.failure is not None:
            raise self.failure


def test_a_stack_s_stop_stops_its_capacity_emulator_once() -> None:
    stack = LocalStack(StackConfig())  # nothing started: its ports are never bound
    front = _Front()
    stack.front = cast("CapacityFront", front)

    stack.stop()

    assert front.stops == 1


def test_an_emulator_that_fails_to_stop_leaves_the_rest_to_stop(caplog: pytest.LogCaptureFixture) -> None:
    stack = LocalStack(StackConfig())
    stack.front = cast("CapacityFront", _Front(OSError("No space left on device")))
    database = _Front()
    stack.dynamodb = cast("DynamoDBLocal", database)

    stack.stop()

    assert database.stops == 1
    assert "the capacity emulator's last second was not kept: No space left on device" in caplog.text
