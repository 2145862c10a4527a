"""Checks of the bench's command-line numbers: a figure out of its range is refused by argparse, with the range,
before anything runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def at_least(minimum: float, kind: Callable[[str], float] = float) -> Callable[[str], float]:
    """An argparse ``type`` reading a number of ``kind`` (``int``, ``float``) no smaller than ``minimum``."""

    def read(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'a whole number' if kind is int else 'a number'}"
            ) from None
        if not value >= minimum:  # NaN is no number either
            raise argparse.ArgumentTypeError(f"{text} is not a number from {minimum:g} up")
        return value

    return read
