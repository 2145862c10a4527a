"""The answer of ``GET /datasets/{name}/keys/{key}``: one row of a keyed dataset (``fencepost.http.key_routes``)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class KeyRow(BaseModel):
    dataset: str
    version: int = Field(description="The keyed version read: the live one, or the one live at `as_of`.")
    as_of: str | None = Field(None, description="With `as_of`: the instant asked for (RFC 3339, UTC).")
    key: str = Field(description="The key as the dataset compares keys (`AS13335` is `13335` for AS numbers).")
    data: dict[str, str] = Field(
        description="The row: its key column, then the other columns, by name.",
        examples=[{"asn": "13335", "name": "CLOUDFLARENET", "country": "US"}],
    )
