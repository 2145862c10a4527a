"""How a message arrived, and how one is handed back to be delivered again."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Delivery:
    """A message's deadline (a ``monotonic()`` value) and how often it has been delivered."""

    deadline: float
    receive_count: int = 1


class HandBack(Exception):
    """Leave the message on its queue, to be delivered again after ``delay`` seconds."""

    def __init__(self, reason: str, delay: float) -> None:
        super().__init__(reason)
        self.delay = delay


def backoff(delivery: Delivery, base: float) -> float:
    """The delay before delivery number ``receive_count + 1``: doubling from ``base``, at most five minutes."""
    return float(min(300, base * 2 ** (delivery.receive_count - 1)))
