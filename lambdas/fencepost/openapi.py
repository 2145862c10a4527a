"""The OpenAPI document of the HTTP API, built on its first request and kept.

The runtime app declares no parameter or response models: Powertools' OpenAPI machinery and pydantic cost
about 60 ms of cold start, and the validation middleware as much as the rest of a lookup. So the document is
built here by a resolver that exists only to describe the API: the same routes, their parameters, and exactly
the responses each can give. A test holds the two together.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse

from fencepost import schemas
from fencepost.core.keys import DATASET_NAME_PATTERN
from fencepost.errors import (
    BatchTooLarge,
    InvalidIp,
    InvalidRequest,
    MissingIp,
    NotFound,
    ServiceError,
    Unavailable,
    UnknownDataset,
)

TITLE = "Fencepost"
DESCRIPTION = "Which range contains this address, and what is known about it?"


def _responses(ok: type[Any], *errors: type[ServiceError], cached: bool = False) -> dict[int, OpenAPIResponse]:
    """The responses a route can give: exactly these, each with its stable codes."""
    success: OpenAPIResponse = {"description": "Success", "content": {"application/json": {"model": ok}}}
    if cached:
        success["headers"] = {"Cache-Control": {"description": "public (private for ip=me), max-age=<seconds>"}}
    declared: dict[int, OpenAPIResponse] = {200: success}
    for status in sorted({error.status for error in errors}):
        group = [error for error in errors if error.status == status]
        model = schemas.NotFoundResponse if NotFound in group else schemas.ErrorResponse
        declared[status] = {
            "description": " / ".join(error.code for error in group),
            "content": {"application/json": {"model": model}},
        }
        if status == Unavailable.status:
            declared[status]["headers"] = {"Retry-After": {"description": "Seconds to wait before retrying"}}
    declared[500] = {
        "description": "INTERNAL: an unexpected fault, logged with its correlation id",
        "content": {"application/json": {"model": schemas.ErrorResponse}},
    }
    return declared


def _describe() -> APIGatewayHttpResolver:
    app = APIGatewayHttpResolver(enable_validation=True)

    @app.get(
        "/lookup",
        summary="Find the range that contains an address",
        responses=_responses(
            schemas.LookupResult,
            InvalidIp,
            MissingIp,
            InvalidRequest,
            NotFound,
            UnknownDataset,
            Unavailable,
            cached=True,
        ),
    )
    def get_lookup(
        ip: Annotated[str, Query(description="The address, IPv4 or IPv6; `me` for the caller's own.")],
        dataset: Annotated[str | None, Query(description="Dataset name; the service default when omitted.")] = None,
    ) -> None: ...

    @app.post(
        "/lookup",
        summary="Look up many addresses against one version of a dataset",
        responses=_responses(schemas.BatchResponse, BatchTooLarge, InvalidRequest, UnknownDataset, Unavailable),
    )
    def post_lookup(request: schemas.BatchRequest) -> None: ...

    @app.get("/datasets", summary="List the datasets", responses=_responses(schemas.DatasetList, Unavailable))
    def get_datasets() -> None: ...

    @app.get(
        "/datasets/<name>",
        summary="One dataset: its live version and the state of its latest load",
        responses=_responses(schemas.Dataset, InvalidRequest, UnknownDataset, Unavailable),
    )
    def get_dataset(name: Annotated[str, Path(description="Dataset name")]) -> None: ...

    return app


# What the API accepts, stated exactly (pydantic's annotations cannot say "an IPv4 or IPv6 address, or me").
ADDRESS: dict[str, Any] = {
    "anyOf": [{"type": "string", "format": "ipv4"}, {"type": "string", "format": "ipv6"}, {"const": "me"}]
}
DATASET_NAME: dict[str, Any] = {"type": "string", "pattern": f"^{DATASET_NAME_PATTERN}$"}


def document(max_batch: int = 100) -> str:
    """The document as JSON, with the parameters' exact forms and the configured batch limit.

    (Powertools adds a 422 to validated routes; this API never answers 422.)
    """
    built = json.loads(_describe().get_openapi_json_schema(title=TITLE, version="1.0.0", description=DESCRIPTION))
    for operations in built.get("paths", {}).values():
        for operation in operations.values():
            operation.get("responses", {}).pop("422", None)
            for parameter in operation.get("parameters", []):
                exact = {"ip": ADDRESS, "dataset": DATASET_NAME, "name": DATASET_NAME}[parameter["name"]]
                parameter["schema"] = {**exact, "description": parameter["schema"].get("description", "")}
    schemas_ = built.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        schemas_.pop(name, None)
    batch = schemas_["BatchRequest"]["properties"]
    batch["ips"]["maxItems"] = max_batch
    batch["dataset"] = {"anyOf": [DATASET_NAME, {"type": "null"}], "description": batch["dataset"].get("description")}
    return json.dumps(built, separators=(",", ":"))
