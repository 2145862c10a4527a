"""The models of ``GET /datasets/{name}/versions`` (``fencepost.http.version_routes``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class LivePeriod(BaseModel):
    from_: str = Field(alias="from", description="When the version went live (RFC 3339, UTC), inclusive.")
    until: str | None = Field(description="When it stopped, exclusive; null while it is live.")


class KeptVersion(BaseModel):
    version: int
    live: list[LivePeriod] = Field(description="Each time it was live, the latest first (a rollback adds one).")
    ranges: int
    objects: list[dict[str, Any]] = Field(description="The objects it was built from: key, etag and size.")
    kept_until: str | None = Field(
        description="When its deletion is due (RFC 3339); null while it is served or no deletion is scheduled."
    )
    dated: str | None = Field(
        description="The date of the dated folder (`_history/YYYY-MM-DD/`) it was built from: a past version, never "
        "live, that answers from that date until the next event; null for a version that went live."
    )
    built_at: str | None = Field(description="When it was built (RFC 3339, UTC); null for a version built before.")
    data_date: dict[str, str] | None = Field(
        description="Its data's own date as its publisher states it (`date`, `source`: `mmdb`, `rir`, `document`, "
        "`last-modified` or `name`, `object`), as in `GET /datasets/{name}`; null when none does, or for a version "
        "built before."
    )


class DatedFolder(BaseModel):
    date: str = Field(examples=["2025-01-01"])
    version: int | None = Field(description="The build that read the folder's objects as they are now.")
    status: Literal["LOADING", "READY", "FAILED"] = Field(
        description="READY: placed in the history at its date; FAILED: see `reason` and the build's report."
    )
    reason: str | None = Field(description="Why it failed (a date not before the first live version, for one).")


class VersionList(BaseModel):
    dataset: str
    live: int | None = Field(description="The live version; null when nothing is served.")
    retain_days: int = Field(description="The folder's `retain_days`: how long versions stay kept after live.")
    columns: list[str] | None = Field(description="The live version's data columns; null when nothing is served.")
    indexed: list[str] | None = Field(
        description="The live version's indexed columns (`GET /datasets/{name}/values/{column}` takes these); null "
        "when nothing is served."
    )
    key: str | None = Field(
        description="A keyed dataset's key column (`GET /datasets/{name}/keys/{key}`); null for a range dataset."
    )
    keyed_joins: list[dict[str, Any]] | None = Field(
        description="The keyed datasets the live version joins into its answers (`dataset`, `on`, `columns`, "
        "`prefix`: the folder's `keyed_joins` it was built with); null when nothing is served."
    )
    versions: list[KeptVersion]
    dated: list[DatedFolder] = Field(description="Every dated folder, by date, with what became of it.")
    next: str | None = Field(description="The cursor of the next page; null on the last page.")
