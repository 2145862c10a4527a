"""Request and response models of the served OpenAPI document: ``fencepost.http.routes`` names each route's by class
name. Only the document imports pydantic; the runtime app checks the body of ``POST /lookup`` by hand (see
``fencepost.http.openapi.document`` for why)."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from fencepost.model import DatasetRecord, DiffSummary
from fencepost.reading.several import MAX_DATASETS, MAX_LOOKUPS


class BatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ips: list[str] = Field(min_length=1, description="Addresses to look up, answered in this order.")
    dataset: str | None = Field(default=None, description="Dataset to read; the service default when omitted.")
    datasets: list[str] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_DATASETS,
        description="Datasets to read (instead of `dataset`): each address is answered from every one, as `GET "
        "/lookup` answers a list of datasets (even a list of one). Addresses times datasets: at most "
        f"{MAX_LOOKUPS}.",
    )
    mode: Literal["all", "first"] | None = Field(
        default=None, description="How the answers of `datasets` combine (see `mode` of `GET /lookup`)."
    )
    fields: list[str] | None = Field(
        default=None,
        description="Paths each answer keeps, one a string (see the `fields` parameter of `GET /lookup`): "
        "`ip` is always kept, and `error` where there is one. An unknown top-level field is INVALID_FIELDS.",
    )


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


class SelectedResult(BaseModel):
    """A found range with only the paths named by ``fields``: each object only the keys selected that it has."""

    ip: str = Field(description="The address looked up, in canonical form.", examples=["1.0.32.5"])
    dataset: str = Field(default_factory=str)
    version: int = Field(default_factory=int)
    range: dict[str, Any] = Field(default_factory=dict)
    match: dict[str, Any] = Field(default_factory=dict)
    data: dict[str, str] = Field(default_factory=dict)
    reserved: dict[str, str] = Field(default_factory=dict)


class ErrorDetail(BaseModel):
    code: str = Field(
        description="Stable code: INVALID_IP, MISSING_IP, BATCH_TOO_LARGE, INVALID_REQUEST, NOT_FOUND, "
        "UNKNOWN_DATASET, INVALID_FIELDS, METHOD_NOT_ALLOWED, CURSOR_EXPIRED, UNAVAILABLE, RESPONSE_TOO_LARGE, "
        "INTERNAL."
    )
    message: str


GAP_DESCRIPTION = (
    "The whole stretch around the address that no range of the version covers, with the largest CIDR block in it "
    "around the address. Absent for versions loaded before gaps were stored: a reload adds it."
)


class DatasetVersion(BaseModel):
    dataset: str
    version: int


class AnswerError(BaseModel):
    """A dataset of a several-dataset answer that has no range for the address (NOT_FOUND), or is not loaded
    (UNKNOWN_DATASET)."""

    ip: str
    dataset: str
    version: int | None = None
    gap: MatchSpan | dict[str, str] | None = Field(default=None, description=GAP_DESCRIPTION)
    error: ErrorDetail


class CombinedResult(BaseModel):
    """The answers of several datasets (``dataset=a,b``), in request order."""

    ip: str
    match: MatchSpan | dict[str, str] | None = Field(
        default=None,
        description="Where every answer below holds: the intersection of each known dataset's `match` or `gap`.",
    )
    reserved: ReservedEntry | dict[str, str] | None = Field(default=None, description=RESERVED_DESCRIPTION)
    answers: list[LookupResult | SelectedResult | AnswerError]


# The 200 of GET /lookup: SelectedResult when fields is given; CombinedResult for several datasets.
LookupAnswer = LookupResult | SelectedResult | CombinedResult

SELECTED_RESERVED = " With `fields`, only the keys selected."


class ErrorResponse(BaseModel):
    error: ErrorDetail


class NotFoundResponse(BaseModel):
    """No range contains the address (``ip`` set), or no such path (``path`` set)."""

    ip: str | None = None
    dataset: str | None = None
    version: int | None = None
    path: str | None = None
    gap: MatchSpan | dict[str, str] | None = Field(default=None, description=GAP_DESCRIPTION)
    versions: list[DatasetVersion] | None = Field(
        default=None, description="With `mode=first`: the version of each dataset of the list, none of which answers."
    )
    reserved: ReservedEntry | dict[str, str] | None = Field(
        default=None, description=RESERVED_DESCRIPTION + SELECTED_RESERVED
    )
    error: ErrorDetail


class BatchError(BaseModel):
    """An address of the batch that was not answered with a range: INVALID_IP, NOT_FOUND, or RESPONSE_TOO_LARGE
    (the answers before it filled the response budget: send it again in another request)."""

    ip: str = Field(description="The address as it was sent.")
    dataset: str | None = Field(default=None, description="NOT_FOUND from one dataset: the dataset read.")
    version: int | None = None
    gap: MatchSpan | dict[str, str] | None = Field(default=None, description=GAP_DESCRIPTION)
    versions: list[DatasetVersion] | None = Field(default=None, description="NOT_FOUND with `mode=first`.")
    reserved: ReservedEntry | dict[str, str] | None = Field(
        default=None, description=RESERVED_DESCRIPTION + " (NOT_FOUND only)." + SELECTED_RESERVED
    )
    error: ErrorDetail


class BatchResponse(BaseModel):
    results: list[LookupResult | SelectedResult | CombinedResult | BatchError] = Field(
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


class ListedRange(Span):
    data: dict[str, str] = Field(description="Metadata columns by name, in file order.")


class RangeList(BaseModel):
    dataset: str
    version: int = Field(description="The version listed: a cursor keeps its pages on one version.")
    within: str | None = Field(description="The network listed, canonical; null: all of IPv4, then IPv6.")
    ranges: list[ListedRange] = Field(description="Stored pieces that meet `within`, whole, in address order.")
    next: str | None = Field(description="The cursor of the next page; null on the last page.")


class Change(Span):
    change: Literal["added", "removed", "changed"] = Field(
        description="`added`: NOT_FOUND before; `removed`: NOT_FOUND now; `changed`: another answer."
    )
    data: dict[str, str] | None = Field(description="What the stretch answers now; null when it is NOT_FOUND now.")


class DiffPage(BaseModel):
    dataset: str
    version: int | None = Field(description="The latest build, which the changes lead to; null before any load.")
    status: str = Field(description="The state of that load: READY (live), LOADING, or FAILED (then never live).")
    diff: DiffSummary | None = Field(
        description="The comparison's counts, as `load.diff` of the dataset; null until the build has compared "
        "itself with the live version. With a null `baseline` there was nothing to compare with, and no changes."
    )
    changes: list[Change] = Field(
        description="Stretches whose answer changed, in address order (IPv4, then IPv6), each wholly in one piece "
        "of the new version and one of the old."
    )
    next: str | None = Field(description="The cursor of the next page; null on the last page.")
