"""What a dataset's record keeps of each sink's last push, and ``GET /datasets/{name}`` shows (``sinks``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True, slots=True)
class SinkState:
    """One sink of a dataset: the version last pushed to it, when, how many entries in which sets; and the last
    failure (cleared by the next push that succeeds)."""

    sink: str  # "waf" or "prefix_list"
    version: int | None = None
    pushed_at: str | None = None
    entries: int = 0
    sets: list[str] = field(default_factory=list)  # the IP sets' names, or the prefix list's id
    changed: int = 0  # entries added and removed by the last push (0: it already held the version)
    rule_group: str | None = None  # the WAF rule group that references the sets (``rule_group`` asked for)
    error: str | None = None
    failed_at: str | None = None

    def failed(self, error: str, at: str) -> SinkState:
        return replace(self, error=error[:500], failed_at=at)


class PushFailed(Exception):
    """A sink refused or did not answer (a quota, throttling, a permission, conflicts past the retries): recorded on
    the dataset, counted (``SinkFailed``) and tried again later. ``code``: AWS's error code, or what went wrong."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code
