"""The model of ``GET /`` (``fencepost.http.index_route``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class IndexedRoute(BaseModel):
    method: Literal["GET", "POST"]
    path: str = Field(description="As this document writes it, relative to the API's address.", examples=["/lookup"])
    summary: str


class ApiIndex(BaseModel):
    service: Literal["fencepost"]
    console: str = Field(description="The web console's path (HTML).", examples=["/console"])
    openapi: str = Field(description="This document's path.", examples=["/openapi.json"])
    default_dataset: str = Field(
        description="The dataset a lookup without `dataset` reads (`DEFAULT_DATASET`).", examples=["default"]
    )
    routes: list[IndexedRoute] = Field(description="Every route this document describes, in its order.")
