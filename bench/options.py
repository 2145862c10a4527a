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
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value >= minimum:  # NaN too
            raise argparse.ArgumentTypeError(f"{text} is below {minimum:g}")
        return value

    return read
