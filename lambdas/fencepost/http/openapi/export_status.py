"""The model of ``GET /datasets/{name}/export`` (``fencepost.http.export_routes``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ExportStatus(BaseModel):
    """The answer of an export: 202 while it is being written (``Retry-After`` says when to ask again), 303 once
    written (``Location`` is the download link, also in ``url``)."""

    dataset: str
    version: int
    format: Literal["csv", "cidr", "mmdb", "parquet"]
    profile: Literal["geolite2-country", "geolite2-city", "geolite2-asn"] | None = Field(
        None, description="With `profile`: the GeoLite2 record shape asked for (`format` is `mmdb`)."
    )
    status: Literal["WRITING", "READY"]
    url: str | None = Field(None, description="With 303: the download link, valid for 15 minutes.")
    retry_after: int | None = Field(None, description="With 202: seconds to wait before asking again.")
