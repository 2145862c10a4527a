"""The routes of the HTTP API, declared once. The runtime app (``fencepost.http.app``) reads this table to register each
route's function and to answer 404 or 405 (with ``Allow``) for anything else; the OpenAPI document reads it for each
route's parameters, models and exactly the errors it can give. Adding a route, or an error to a route, is one entry.

Plain data, so the runtime reads it without importing pydantic (see ``fencepost.http.openapi.document``): models are
named here and looked up in ``fencepost.http.openapi.schemas`` only when the document is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from fencepost.errors import (
    BatchTooLarge,
    CursorExpired,
    ExportTooLarge,
    InvalidFields,
    InvalidIp,
    InvalidRequest,
    MissingIp,
    NotFound,
    NotIndexed,
    NoVersionAt,
    ResponseTooLarge,
    ServiceError,
    Unavailable,
    UnknownDataset,
    UnknownJob,
    VersionGone,
)
from fencepost.http.parameters import (
    ADDRESS,
    AS_OF,
    AS_OF_DESCRIPTION,
    BETWEEN,
    COLUMN,
    DATASET_NAME,
    DATASET_NAMES,
    DATASETS_DESCRIPTION,
    FIELDS,
    FIELDS_DESCRIPTION,
    FORMAT,
    FORMAT_DESCRIPTION,
    FROM_DESCRIPTION,
    JOB_NAME,
    JOBS_DEFAULT,
    JOBS_LIMIT,
    JOBS_MAX,
    KEY,
    MODE,
    MODE_DESCRIPTION,
    PAST_VERSION_DESCRIPTION,
    SORT,
    SORT_DESCRIPTION,
    TO_DESCRIPTION,
    VERSION,
    WHERE,
    WHERE_DESCRIPTION,
    Param,
    export_params,
    paging,
    past_params,
)


@dataclass(frozen=True, slots=True)
class Route:
    """One method on one path: what serves it, what it takes, and every answer it can give.

    ``path`` is in Powertools' form (``/datasets/<name>``). ``name`` is the route function's name in
    ``fencepost.http.app`` and the document's operation. ``body`` and ``ok`` name models of
    ``fencepost.http.openapi.schemas``: the request body, and the 200 response; a route without ``ok`` is served but not
    documented. ``errors`` are the ``ServiceError`` classes the route can answer besides 200 and an unexpected fault
    (500 ``INTERNAL``, which every route may give); ``cached`` says its 200 carries a ``Cache-Control`` that lets
    clients and CDNs keep it; ``conditional`` that its answers carry ``ETag`` and ``Last-Modified`` and
    ``If-None-Match`` can answer 304 (see ``fencepost.http.conditional``).
    """

    method: Literal["GET", "POST"]
    path: str
    name: str
    summary: str = ""
    parameters: tuple[Param, ...] = ()
    body: str | None = None
    ok: str | None = None
    errors: tuple[type[ServiceError], ...] = ()
    cached: bool = False
    conditional: bool = False
    deferred: bool = False  # answers 202 while its result is made, then 303 to it (``openapi.document``)

    @property
    def documented(self) -> bool:
        return self.ok is not None

    @property
    def openapi_path(self) -> str:
        """The path as the OpenAPI document writes it: ``/datasets/{name}``."""
        return re.sub(r"<(\w+)>", r"{\1}", self.path)

    def parameter(self, name: str) -> Param:
        return next(param for param in self.parameters if param.name == name)


ROUTES: tuple[Route, ...] = (
    Route("GET", "/", "get_index", summary="The API's routes, its console and its default dataset", ok="ApiIndex"),
    Route(
        "GET",
        "/lookup",
        "get_lookup",
        summary="Find the range that contains an address",
        parameters=(
            Param("ip", "query", "The address, IPv4 or IPv6; `me` for the caller's own.", ADDRESS),
            Param("dataset", "query", DATASETS_DESCRIPTION, DATASET_NAMES, required=False),
            Param("mode", "query", MODE_DESCRIPTION, MODE, required=False),
            Param("fields", "query", FIELDS_DESCRIPTION, FIELDS, required=False),
            Param("as_of", "query", AS_OF_DESCRIPTION, AS_OF, required=False),
            Param("version", "query", PAST_VERSION_DESCRIPTION, VERSION, required=False),
        ),
        ok="LookupAnswer",
        errors=(
            InvalidIp,
            MissingIp,
            InvalidRequest,
            InvalidFields,
            NotFound,
            UnknownDataset,
            NoVersionAt,
            VersionGone,
            Unavailable,
            ResponseTooLarge,
        ),
        cached=True,
        conditional=True,
    ),
    Route(
        "POST",
        "/lookup",
        "post_lookup",
        summary="Look up many addresses against one version of a dataset, or of each of several",
        body="BatchRequest",
        ok="BatchResponse",
        errors=(BatchTooLarge, InvalidRequest, InvalidFields, UnknownDataset, NoVersionAt, VersionGone, Unavailable),
    ),
    Route("GET", "/datasets", "get_datasets", summary="List the datasets", ok="DatasetList", errors=(Unavailable,)),
    Route(
        "GET",
        "/datasets/<name>",
        "get_dataset",
        summary="One dataset: its live version and the state of its latest load",
        parameters=(Param("name", "path", "Dataset name", DATASET_NAME),),
        ok="Dataset",
        errors=(InvalidRequest, UnknownDataset, Unavailable),
    ),
    Route(
        "GET",
        "/datasets/<name>/versions",
        "get_versions",
        summary="The dataset's kept versions, each with when it was live, the latest first, a page at a time",
        parameters=(Param("name", "path", "Dataset name", DATASET_NAME), *paging("Versions")),
        ok="VersionList",
        errors=(InvalidRequest, UnknownDataset, Unavailable),
    ),
    Route(
        "GET",
        "/datasets/<name>/export",
        "get_export",
        summary="A whole version as a file: 303 to a download link once written, 202 while it is being written",
        parameters=(
            Param("name", "path", "Dataset name", DATASET_NAME),
            *export_params(),
            Param("version", "query", "The version; the live one when omitted.", VERSION, required=False),
        ),
        ok="ExportStatus",
        errors=(InvalidRequest, ExportTooLarge, UnknownDataset, VersionGone, Unavailable),
        deferred=True,
    ),
    Route(
        "GET",
        "/datasets/<name>/diff",
        "get_diff",
        summary="What the dataset's latest build changed since the version live when it was built, or what differs "
        "between any two kept versions, a page at a time",
        parameters=(
            Param("name", "path", "Dataset name", DATASET_NAME),
            Param("from", "query", FROM_DESCRIPTION, BETWEEN, required=False),
            Param("to", "query", TO_DESCRIPTION, BETWEEN, required=False),
            *paging("Changes"),
        ),
        ok="DiffPage",
        errors=(
            InvalidRequest,
            UnknownDataset,
            NotFound,
            NoVersionAt,
            VersionGone,
            CursorExpired,
            Unavailable,
            ResponseTooLarge,
        ),
    ),
    Route(
        "GET",
        "/ranges",
        "get_ranges",
        summary="List the pieces of a version that meet a network, in address order (by a joined column: each of "
        "its key's values in address order, value after value), a page at a time",
        parameters=(
            Param("dataset", "query", "Dataset name; the service default when omitted.", DATASET_NAME, required=False),
            Param(
                "within",
                "query",
                "A CIDR network (`1.0.0.0/16`, `2001:db8::/32`); all of IPv4, then all of IPv6, when omitted.",
                {"type": "string", "maxLength": 49},
                required=False,
            ),
            Param("where", "query", WHERE_DESCRIPTION, WHERE, required=False),
            Param("format", "query", FORMAT_DESCRIPTION, FORMAT, required=False),
            *past_params("pieces"),
            *paging("Pieces"),
        ),
        ok="RangeList",
        errors=(
            InvalidRequest,
            NotIndexed,
            UnknownDataset,
            NoVersionAt,
            VersionGone,
            CursorExpired,
            Unavailable,
            ResponseTooLarge,
        ),
    ),
    Route(
        "GET",
        "/datasets/<name>/values/<column>",
        "get_values",
        summary="The distinct values of an indexed column, with what each covers, a page at a time",
        parameters=(
            Param("name", "path", "Dataset name", DATASET_NAME),
            Param("column", "path", "An indexed column (percent-encoded).", COLUMN),
            Param("sort", "query", SORT_DESCRIPTION, SORT, required=False),
            *past_params("values"),
            *paging("Values"),
        ),
        ok="ValueList",
        errors=(InvalidRequest, NotIndexed, UnknownDataset, NoVersionAt, VersionGone, CursorExpired, Unavailable),
    ),
    Route(
        "GET",
        "/datasets/<name>/values/<column>/<value>",
        "get_value",
        summary="One value of an indexed column: the pieces, IPv4 addresses and IPv6 /64s it covers",
        parameters=(
            Param("name", "path", "Dataset name", DATASET_NAME),
            Param("column", "path", "An indexed column (percent-encoded).", COLUMN),
            Param("value", "path", "The value (percent-encoded).", COLUMN),
            *past_params("the value's counts"),
        ),
        ok="ValueOne",
        errors=(InvalidRequest, NotIndexed, NotFound, UnknownDataset, NoVersionAt, VersionGone, Unavailable),
    ),
    Route(
        "GET",
        "/datasets/<name>/keys/<key>",
        "get_key",
        summary="One row of a keyed dataset (AS number to name, and any table of keys), live or at `as_of`",
        parameters=(Param("name", "path", "Keyed dataset name", DATASET_NAME), KEY, *past_params("row")),
        ok="KeyRow",
        errors=(InvalidRequest, NotFound, UnknownDataset, NoVersionAt, VersionGone, Unavailable),
        cached=True,
    ),
    Route(
        "GET",
        "/enrich",
        "get_jobs",
        summary="The enrichment jobs in the bucket, each with its state, a page at a time",
        parameters=(
            Param("limit", "query", f"Jobs per page, 1 to {JOBS_MAX} ({JOBS_DEFAULT}).", JOBS_LIMIT, required=False),
            Param("cursor", "query", "The `next` of the previous page, unchanged.", JOB_NAME, required=False),
        ),
        ok="JobList",
        errors=(InvalidRequest, Unavailable),
    ),
    Route(
        "GET",
        "/enrich/<job>",
        "get_job",
        summary="One enrichment job: queued, running (parts done of parts), done (its summary) or failed (why)",
        parameters=(Param("job", "path", "Job name: its folder under `_enrich/` in the bucket.", JOB_NAME),),
        ok="JobStatus",
        errors=(InvalidRequest, UnknownJob, Unavailable),
    ),
    Route("GET", "/openapi.json", "openapi"),  # the document itself, not described in it
    # The web console (``fencepost.http.console``): a page and its files, not described in the document.
    Route("GET", "/console", "console"),
    Route("GET", "/console/<asset>", "console_asset"),
)
