"""The ``source`` of ``GET /datasets/{name}``: what the last check of the folder's ``_source.json`` found
(``fencepost.core.sources.schedule.SourceState.to_api`` writes it)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from fencepost.core.sources.schedule import Outcome


class SourceStatus(BaseModel):
    url: str | None = Field(
        description="The first file's address, without its query (which may hold a key); null while the "
        "`_source.json` cannot be used."
    )
    every_seconds: int = Field(description="Seconds between checks (`every`).")
    paused: bool = Field(description="`paused` in `_source.json`: not checked until it is resumed.")
    outcome: Literal[tuple(Outcome)] | None = Field(  # type: ignore[valid-type]
        description="The last check's: CHANGED (a release written, built as usual), UNCHANGED (nothing new: nothing "
        "written), FAILED (the folder untouched), INVALID (`_source.json` cannot be used)."
    )
    reason: str | None = Field(description="Why the last check failed.")
    last_checked: str | None = Field(description="When the last check ran (ISO 8601, UTC).")
    last_changed: str | None = Field(description="When a check last wrote a new release.")
    next_check: str | None = Field(
        description="When the next check is due (none while paused, or while `_source.json` cannot be used: it is "
        "checked again once it changes)."
    )
    checks: int = Field(description="Checks so far.")
    unchanged: int = Field(description="Checks that found nothing new (and wrote and built nothing).")
    failures_in_a_row: int = Field(description="Failed checks since the last good one (an alarm watches 3).")
