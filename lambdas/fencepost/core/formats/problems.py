"""What a load reports about its input: one record per row (or object) that could not be used."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_REASON_CHARS = 1000  # a longer reason (one that quotes a huge header, say) is cut, marked with "..."
RECORD_PROBLEM_BYTES = 64 * 1024  # what a dataset record's problems may take of its 400 KB item


@dataclass(frozen=True, slots=True)
class Problem:
    """A row (or object) that could not be used: where, and why. The same record reaches the API's ``problems``."""

    object: str
    line: int | None
    reason: str

    def __post_init__(self) -> None:
        if len(self.reason) > MAX_REASON_CHARS:
            object.__setattr__(self, "reason", self.reason[: MAX_REASON_CHARS - 3] + "...")


def for_record(problems: Sequence[Problem], count: int) -> list[Problem]:
    """The first ``count`` problems, or fewer: as many as fit ``RECORD_PROBLEM_BYTES``."""
    kept: list[Problem] = []
    size = 0
    for problem in problems[:count]:
        size += len(problem.object.encode()) + len(problem.reason.encode()) + 40  # names, line, list overhead
        if size > RECORD_PROBLEM_BYTES:
            break
        kept.append(problem)
    return kept
