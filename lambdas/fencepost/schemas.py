"""Request and response models of the served OpenAPI document: ``fencepost.routes`` names each route's by class
name. Only the document imports pydantic; the runtime app checks the body of ``POST /lookup`` by hand (see
``fencepost.openapi`` for why)."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from fencepost.model import DatasetRecord


class BatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ips: list[str] = Field(min_length=1, description="Addresses to look up, answered in this order.")
    dataset: str | None = Field(default=None, description="Dataset to read; the service default when omitted.")


class Span(BaseModel):
    start: str = Field(examples=["1.0.32.0"])
    end: str = Field(examples=["1.0.63.255"])


class RangeSpan(Span):
    cidrs: list[str] = Field(
        description="The fewest CIDR blocks that together are exactly the range, in address order.",
        examples=[["1.0.32.0/19"]],
    )


class MatchSpan(Span):
    network: str = Field(
        description="The largest CIDR block that contains the address and lies inside the match.",
        examples=["1.0.32.0/19"],
    )


class ReservedEntry(BaseModel):
    """The most specific entry of the IANA IPv4 or IPv6 Special-Purpose Address Registry holding the address."""

    name: str = Field(examples=["Private-Use"])
    network: str = Field(examples=["10.0.0.0/8"])
    rfc: str = Field(description="The registry's references, comma separated.", examples=["RFC 1918"])


RESERVED_DESCRIPTION = "Present only when the address is in the IANA Special-Purpose Address Registries."


class LookupResult(BaseModel):
    ip: str = Field(description="The address looked up, in canonical form.", examples=["1.0.32.5"])
    dataset: str
    version: int
    range: RangeSpan = Field(description="The range as its file gave it.")
    match: MatchSpan = Field(
        description="The piece of the range in which this answer holds: cache it for exactly that."
    )
    data: dict[str, str] = Field(description="Metadata columns by name, in file order.")
    reserved: ReservedEntry | None = Field(default=None, description=RESERVED_DESCRIPTION)


class ErrorDetail(BaseModel):
    code: str = Field(
        description="Stable code: INVALID_IP, MISSING_IP, BATCH_TOO_LARGE, INVALID_REQUEST, NOT_FOUND, "
        "UNKNOWN_DATASET, METHOD_NOT_ALLOWED, UNAVAILABLE, RESPONSE_TOO_LARGE, INTERNAL."
    )
    message: str


class ErrorResponse(BaseModel):
    error: ErrorDetail


class NotFoundResponse(BaseModel):
    """No range contains the address (``ip`` set), or no such path (``path`` set)."""

    ip: str | None = None
    dataset: str | None = None
    version: int | None = None
    path: str | None = None
    reserved: ReservedEntry | None = Field(default=None, description=RESERVED_DESCRIPTION)
    error: ErrorDetail


class BatchError(BaseModel):
    """An address of the batch that was not answered with a range: INVALID_IP, NOT_FOUND, or RESPONSE_TOO_LARGE
    (the answers before it filled the response budget: send it again in another request)."""

    ip: str = Field(description="The address as it was sent.")
    reserved: ReservedEntry | None = Field(default=None, description=RESERVED_DESCRIPTION + " (NOT_FOUND only)")
    error: ErrorDetail


class BatchResponse(BaseModel):
    results: list[LookupResult | BatchError] = Field(
        description="One per address, in request order. When the answers would exceed the response budget, every "
        "one from the first that does not fit is RESPONSE_TOO_LARGE; the earlier ones are complete."
    )


def _served(record: type, name: str) -> type[BaseModel]:
    """The response model of a record: its served fields under their API names, so the record (in
    ``fencepost.model``) stays the one definition of what ``GET /datasets/{name}`` answers."""
    hints = typing.get_type_hints(record)
    served: dict[str, Any] = {
        spec.metadata.get("api", spec.name): (hints[spec.name], Field(description=spec.metadata.get("doc")))
        for spec in dataclasses.fields(record)
        if spec.metadata.get("served", True)
    }
    model: type[BaseModel] = create_model(name, **served)
    return model


Dataset = _served(DatasetRecord, "Dataset")


DatasetList = create_model("DatasetList", datasets=(list[Dataset], ...))  # type: ignore[valid-type]
