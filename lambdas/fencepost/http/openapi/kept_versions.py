"""The models of ``GET /datasets/{name}/versions`` (``fencepost.http.version_routes``)."""

from __future__ import annotations

from typing import Any

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


class VersionList(BaseModel):
    dataset: str
    live: int | None = Field(description="The live version; null when nothing is served.")
    retain_days: int = Field(description="The folder's `retain_days`: how long versions stay kept after live.")
    versions: list[KeptVersion]
    next: str | None = Field(description="The cursor of the next page; null on the last page.")
