"""``FAULTS``: which faults the local stack injects, and how often, in one line.

    FAULTS=dynamodb.error=0.02,dynamodb.reset=0.01,dynamodb.slow=0.05@500ms,s3.error=0.01,s3.cut=0.01,loader.kill=1

Comma-separated ``name=value`` pairs, each name at most once. A rate is a share of requests, from 0 to 1 (``0.02``)
or a percentage (``2%``); ``dynamodb.slow`` takes a delay after ``@`` (``500ms``, ``2s``; 500 ms unless given);
``loader.kill`` is a number of kills. An empty spec, ``off`` or ``none`` injects nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

DEFAULT_DELAY: Final = 0.5  # seconds of a latency spike unless the spec gives one
MAX_DELAY: Final = 30.0
MAX_KILLS: Final = 100
_DURATION: Final = re.compile(r"(\d+(?:\.\d+)?)(ms|s)?")
_NOTHING: Final = ("", "off", "none")

# name: what it does (the error messages and ``--help`` list them from here)
FAULTS: Final = {
    "dynamodb.error": "RATE of DynamoDB requests answered InternalServerError (500) or ServiceUnavailable (503)",
    "dynamodb.reset": "RATE of DynamoDB requests forwarded, then their answer cut by a connection reset",
    "dynamodb.slow": "RATE[@DELAY] of DynamoDB requests held DELAY (500ms unless given) before they are forwarded",
    "s3.error": "RATE of S3 requests answered SlowDown (503) or InternalError (500)",
    "s3.cut": "RATE of S3 GETs answered with fewer bytes than their Content-Length, then the connection closed",
    "loader.kill": "N data-lane loader processes killed (SIGKILL) mid-chunk, then restarted",
}


class FaultSpecError(ValueError):
    """A ``FAULTS`` spec that cannot be read; the message says what can."""


@dataclass(frozen=True, slots=True)
class FaultSpec:
    dynamodb_error: float = 0.0
    dynamodb_reset: float = 0.0
    dynamodb_slow: float = 0.0
    dynamodb_delay: float = DEFAULT_DELAY
    s3_error: float = 0.0
    s3_cut: float = 0.0
    loader_kill: int = 0

    @property
    def dynamodb(self) -> bool:
        return bool(self.dynamodb_error or self.dynamodb_reset or self.dynamodb_slow)

    @property
    def s3(self) -> bool:
        return bool(self.s3_error or self.s3_cut)

    @property
    def any(self) -> bool:
        return self.dynamodb or self.s3 or bool(self.loader_kill)

    def describe(self) -> str:
        """The spec written back, canonical: what the banner and the reports show."""
        parts = []
        for name in FAULTS:
            value = getattr(self, name.replace(".", "_"))
            if not value:
                continue
            text = str(value) if name == "loader.kill" else f"{value:g}"
            if name == "dynamodb.slow":
                text += f"@{self.dynamodb_delay * 1000:g}ms"
            parts.append(f"{name}={text}")
        return ",".join(parts) or "none"


def parse_faults(text: str) -> FaultSpec:
    if text.strip().lower() in _NOTHING:
        return FaultSpec()
    values: dict[str, float | int] = {}
    for part in text.split(","):
        name, equals, value = (piece.strip() for piece in part.partition("="))
        if not name:
            raise FaultSpecError(f"an empty entry in FAULTS={text[:200]!r}: entries are name=value, comma-separated")
        if name not in FAULTS:
            known = ", ".join(FAULTS)
            raise FaultSpecError(f"unknown fault {name[:40]!r} in FAULTS: the faults are {known}")
        if not equals or not value:
            raise FaultSpecError(f"{name} has no value: write {name}=... ({FAULTS[name]})")
        key = name.replace(".", "_")
        if key in values:
            raise FaultSpecError(f"{name} is given twice in FAULTS")
        if name == "loader.kill":
            values[key] = _kills(value)
        elif name == "dynamodb.slow":
            rate, _, delay = value.partition("@")
            values[key] = _rate(name, rate)
            values["dynamodb_delay"] = _delay(name, delay) if delay else DEFAULT_DELAY
        else:
            values[key] = _rate(name, value)
    return FaultSpec(**values)  # type: ignore[arg-type]


def _rate(name: str, text: str) -> float:
    percent = text.endswith("%")
    try:
        rate = float(text.removesuffix("%")) / (100 if percent else 1)
    except ValueError:
        rate = -1.0
    if not 0 <= rate <= 1:
        raise FaultSpecError(
            f"{name}={text[:40]}: a rate is a share of requests from 0 to 1 (0.02) or a percentage (2%)"
        )
    return rate


def _delay(name: str, text: str) -> float:
    match = _DURATION.fullmatch(text)
    seconds = float(match.group(1)) / (1000 if match.group(2) == "ms" else 1) if match else -1.0
    if not 0.001 <= seconds <= MAX_DELAY:
        raise FaultSpecError(
            f"{name}: the delay after @ is a duration from 1ms to {MAX_DELAY:g}s (500ms, 2s), not {text[:40]!r}"
        )
    return seconds


def _kills(text: str) -> int:
    if not text.isdigit() or int(text) > MAX_KILLS:
        raise FaultSpecError(f"loader.kill={text[:40]}: a number of kills from 0 to {MAX_KILLS}")
    return int(text)
