"""What a load reports about its input: one record per row (or object) that could not be used."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """A row (or object) that could not be used: where, and why. The same record reaches the API's ``problems``."""

    object: str
    line: int | None
    reason: str
