"""The fields ``GET /datasets`` and ``GET /datasets/{name}`` show beside a dataset's record: its freshness
(``fencepost.core.folders.max_age.shown`` writes it: whether the live version is older than the folder's max age)
and its folder's source."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from fencepost.http.openapi.source_status import SourceStatus

SOURCE = (SourceStatus | None, Field(description="The folder's source (`_source.json`); null when it names none."))

FRESHNESS: dict[str, Any] = {
    "stale": (
        bool | None,
        Field(
            description="Whether the live version is older than `max_age_seconds`: true until a newer version goes "
            "live. Null when the dataset has no max age (`max_age` in `_settings.json`, or its source's default) or "
            "no live version."
        ),
    ),
    "age_seconds": (
        int | None,
        Field(description="Seconds since the live version was built (`loaded_at`); null when `stale` is."),
    ),
    "max_age_seconds": (
        int | None,
        Field(
            description="The max age that applies: the folder's `max_age`, else 3 times its source's `every`; null "
            "when `stale` is."
        ),
    ),
}
