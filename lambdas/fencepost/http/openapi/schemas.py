"""Request and response models of the served OpenAPI document: ``fencepost.http.routes`` names each route's by class
name. Only the document imports pydantic; ``POST /lookup``'s body is checked by hand (``openapi.document``)."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from fencepost.http.lookup_params import MAX_DATASETS, MAX_LOOKUPS
from fencepost.http.openapi.api_index import ApiIndex  # noqa: F401 (the routes table names it here)
from fencepost.http.openapi.dataset_fields import FRESHNESS, SOURCE
from fencepost.http.openapi.export_status import ExportStatus  # noqa: F401 (the routes table names it here)
from fencepost.http.openapi.job_status import JobList, JobStatus  # noqa: F401 (the routes table names them here)
from fencepost.http.openapi.kept_versions import VersionList  # noqa: F401 (the routes table names it here)
from fencepost.http.openapi.keyed_rows import KeyRow  # noqa: F401 (the routes table names it here)
from fencepost.model import DatasetRecord, DiffSummary
from fencepost.reading.answers import COMBINED, FIELDS, FOUND, MISSED, ON_REQUEST, Mode


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
    mode: Literal[tuple(Mode)] | None = Field(  # type: ignore[valid-type]
        default=None, description="How the answers of `datasets` combine (see `mode` of `GET /lookup`)."
    )
    fields: list[str] | None = Field(
        default=None,
        description="Paths each answer keeps, one a string (see the `fields` parameter of `GET /lookup`): "
        "`ip` is always kept, and `error` where there is one. An unknown top-level field is INVALID_FIELDS.",
    )
    as_of: str | None = Field(
        default=None,
        description="Answer every address from the version live at this instant (see `as_of` of `GET /lookup`).",
        examples=["2026-11-01T12:00:00Z"],
    )
    version: int | None = Field(
        default=None, ge=1, description="Answer from this version of `dataset` (see `version` of `GET /lookup`)."
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


class ErrorDetail(BaseModel):
    code: str = Field(
        description="Stable code: INVALID_IP, MISSING_IP, BATCH_TOO_LARGE, INVALID_REQUEST, NOT_FOUND, "
        "UNKNOWN_DATASET, INVALID_FIELDS, METHOD_NOT_ALLOWED, CURSOR_EXPIRED, UNAVAILABLE, RESPONSE_TOO_LARGE, "
        "INTERNAL."
    )
    message: str


class DatasetVersion(BaseModel):
    dataset: str
    version: int


# The answer's models, derived from its one declaration (fencepost.reading.answers): each field's meaning comes from
# FIELDS, which fields each answer has from FOUND, MISSED and COMBINED. How a field is typed here; a field not named
# is documented as any JSON value, so a new field of the answer is documented without a change here.
TYPES: dict[str, Any] = {
    "ip": str,
    "dataset": str,
    "version": int,
    "range": RangeSpan,
    "match": MatchSpan,
    "data": dict[str, str],
    "reserved": ReservedEntry,
    "gap": MatchSpan,
    "versions": list[DatasetVersion],
    "error": ErrorDetail,
    "as_of": str,
    "data_date": dict[str, str],  # date, source, object (fencepost.core.versions.data_dates.DataDate)
}
ROUTE_FIELDS = {"path": "No such path: the path asked for."}  # a field of the 404 of any route, not of an answer
# An object of the answer as ``fields`` may leave it: only the keys selected.
PARTIAL: dict[str, Any] = {name: TYPES[name] | dict[str, str] for name in ("match", "reserved", "gap")}


def answer_model(
    name: str, fields: tuple[str, ...], *, required: tuple[str, ...], doc: str, types: dict[str, Any] | None = None
) -> type[BaseModel]:
    """A model of ``fields`` (in that order), ``required`` ones first-class, the others absent unless present."""
    kinds = {**TYPES, **(types or {})}
    spec: dict[str, Any] = {}
    for field in fields:
        kind, meaning = kinds.get(field, Any), FIELDS.get(field, ROUTE_FIELDS.get(field))
        if field in required:
            spec[field] = (kind, Field(description=meaning))
        else:
            spec[field] = (kind | None, Field(default=None, description=meaning))
    model: type[BaseModel] = create_model(name, __doc__=doc, **spec)
    return model


LookupResult = answer_model(
    "LookupResult",
    FOUND,
    required=tuple(name for name in FOUND if name not in ("reserved", "as_of", *ON_REQUEST)),
    doc="A found range: the answer of one dataset for one address.",
)
SelectedResult = answer_model(
    "SelectedResult",
    FOUND,
    required=("ip",),
    doc="A found range with only the paths named by ``fields``: each object only the keys selected that it has.",
    types={"range": dict[str, Any], "match": dict[str, Any], "reserved": dict[str, str]},
)
AnswerError = answer_model(
    "AnswerError",
    tuple(name for name in MISSED if name not in ("versions", "reserved")),
    required=("ip", "dataset", "error"),
    doc="A dataset of a several-dataset answer that has no range for the address (NOT_FOUND), or is not loaded "
    "(UNKNOWN_DATASET).",
    types=PARTIAL,
)
CombinedResult = answer_model(
    "CombinedResult",
    COMBINED,
    required=("ip", "answers"),
    doc="The answers of several datasets (``dataset=a,b``), in request order.",
    types={**PARTIAL, "answers": list[LookupResult | SelectedResult | AnswerError]},  # type: ignore[valid-type]
)
NotFoundResponse = answer_model(
    "NotFoundResponse",
    (*MISSED, "path"),
    required=("error",),
    doc="No range contains the address (``ip`` set), or no such path (``path`` set).",
    types={**PARTIAL, "path": str},
)
BatchError = answer_model(
    "BatchError",
    MISSED,
    required=("ip", "error"),
    doc="An address of the batch that was not answered with a range: INVALID_IP, NOT_FOUND, or RESPONSE_TOO_LARGE "
    "(the answers before it filled the response budget: send it again in another request).",
    types=PARTIAL,
)

# The 200 of GET /lookup: SelectedResult when fields is given; CombinedResult for several datasets.
LookupAnswer = LookupResult | SelectedResult | CombinedResult


class ErrorResponse(BaseModel):
    error: ErrorDetail


class BatchResponse(BaseModel):
    results: list[LookupResult | SelectedResult | CombinedResult | BatchError] = Field(  # type: ignore[valid-type]
        description="One per address, in request order. When the answers would exceed the response budget, every "
        "one from the first that does not fit is RESPONSE_TOO_LARGE; the earlier ones are complete."
    )


def _served(record: type, name: str, **more: Any) -> type[BaseModel]:
    """The response model of a record: its served fields under their API names, so the record (in
    ``fencepost.model``) stays the one definition of what ``GET /datasets/{name}`` answers; ``more`` beside them."""
    hints = typing.get_type_hints(record)
    served: dict[str, Any] = {
        spec.metadata.get("api", spec.name): (hints[spec.name], Field(description=spec.metadata.get("doc")))
        for spec in dataclasses.fields(record)
        if spec.metadata.get("served", True)
    }
    model: type[BaseModel] = create_model(name, **served, **more)
    return model


Dataset = _served(DatasetRecord, "Dataset", **FRESHNESS, source=SOURCE)
DatasetList = create_model("DatasetList", datasets=(list[Dataset], ...))  # type: ignore[valid-type]


class ListedRange(Span):
    data: dict[str, str] = Field(description="Metadata columns by name, in file order.")


class WhereFilter(BaseModel):
    column: str = Field(examples=["country"])
    value: str = Field(examples=["AU"])


class WhereJoin(BaseModel):
    dataset: str = Field(description="The keyed dataset whose keys were searched.", examples=["as-names"])
    version: int = Field(description="Its version read: a cursor keeps its pages on it.")
    on: str = Field(description="The indexed column whose values are its keys.", examples=["asn"])


class RangeList(BaseModel):
    dataset: str
    version: int = Field(description="The version listed: a cursor keeps its pages on one version.")
    as_of: str | None = Field(None, description="With `as_of`: the instant asked for (RFC 3339, UTC).")
    where: WhereFilter | None = Field(None, description="With `where=`: the column and value asked for.")
    joined: WhereJoin | None = Field(None, description="With `where=` of a column a keyed join adds: what was read.")
    within: str | None = Field(description="The network listed, canonical; null: all of IPv4, then IPv6.")
    ranges: list[ListedRange] | None = Field(
        None,
        description="Stored pieces that meet `within` (and hold `where`'s value), whole, in address order (by a "
        "joined column: each value of its key's index in address order, value after value).",
    )
    networks: list[str] | None = Field(
        None,
        description="With `format=cidr`: the fewest CIDR networks of the page's pieces, touching pieces merged.",
        examples=[["1.0.0.0/24", "1.0.4.0/22"]],
    )
    next: str | None = Field(description="The cursor of the next page; null on the last page.")


class Change(Span):
    change: Literal["added", "removed", "changed"] = Field(
        description="`added`: NOT_FOUND before; `removed`: NOT_FOUND now; `changed`: another answer."
    )
    data: dict[str, str] | None = Field(description="What the stretch answers now; null when it is NOT_FOUND now.")


class DiffPage(BaseModel):
    dataset: str
    from_: int | None = Field(None, alias="from", description="With `from`: the version the changes lead from.")
    version: int | None = Field(
        description="The version the changes lead to: the latest build (null before any load); with `from`, `to`'s."
    )
    status: str | None = Field(
        None, description="The latest build's state: READY (live), LOADING, or FAILED (never live). Not with `from`."
    )
    diff: DiffSummary | None = Field(
        None,
        description="The comparison's counts, as `load.diff` of the dataset; null until the build has compared "
        "itself with the live version. With a null `baseline` there was nothing to compare with, and no changes. "
        "Not with `from` (two versions are compared a page at a time, never whole).",
    )
    changes: list[Change] = Field(
        description="Stretches whose answer changed, in address order (IPv4, then IPv6), each wholly in one piece "
        "of the new version and one of the old."
    )
    next: str | None = Field(
        description="The cursor of the next page; null on the last page. With `from`, a page also ends after "
        "walking `DIFF_SCAN_PIECES` unchanged stretches: it may hold fewer changes than asked, and a cursor."
    )


class ValueStats(BaseModel):
    value: str = Field(examples=["AU"])
    pieces: int = Field(description="Stored pieces that answer the value.", examples=[12345])
    ipv4_addresses: int = Field(description="IPv4 addresses those pieces cover.", examples=[57031936])
    ipv6_64s: int = Field(description="IPv6 /64 networks those pieces touch, each counted once.", examples=[0])


class ValueList(BaseModel):
    dataset: str
    version: int = Field(description="The version listed: a cursor keeps its pages on one version.")
    as_of: str | None = Field(None, description="With `as_of`: the instant asked for (RFC 3339, UTC).")
    column: str
    sort: Literal["value", "pieces", "ipv4"]
    distinct: int = Field(description="How many distinct values the column holds in this version.")
    values: list[ValueStats]
    next: str | None = Field(description="The cursor of the next page; null on the last page.")


class ValueOne(ValueStats):
    dataset: str
    version: int
    as_of: str | None = Field(None, description="With `as_of`: the instant asked for (RFC 3339, UTC).")
    column: str
