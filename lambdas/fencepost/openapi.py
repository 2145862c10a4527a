"""The OpenAPI document of the HTTP API, built on its first request and kept.

The runtime app declares no parameter or response models: Powertools' OpenAPI machinery and pydantic cost
about 60 ms of cold start, and the validation middleware as much as the rest of a lookup. So the document is
built here by a resolver that exists only to describe the API: the routes of ``fencepost.routes`` (the table
the runtime app serves), their parameters, and exactly the responses each can give.
"""

from __future__ import annotations

import inspect
import json
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse

from fencepost import schemas
from fencepost.errors import NotFound, ServiceError, Unavailable
from fencepost.routes import DATASET_NAME, ROUTES, Param, Route

TITLE = "Fencepost"
INTERNAL = "INTERNAL"  # the code of an unexpected fault (not a ServiceError: any exception)
DESCRIPTION = "Which range contains this address, and what is known about it?"


def _responses(ok: type[Any], errors: tuple[type[ServiceError], ...], cached: bool) -> dict[int, OpenAPIResponse]:
    """The responses a route can give: exactly these, each with its stable codes."""
    success: OpenAPIResponse = {"description": "Success", "content": {"application/json": {"model": ok}}}
    if cached:
        success["headers"] = {"Cache-Control": {"description": "public (private for ip=me), max-age=<seconds>"}}
    declared: dict[int, OpenAPIResponse] = {200: success}
    for status in sorted({error.status for error in errors} | {500}):
        group = [error for error in errors if error.status == status]
        model = schemas.NotFoundResponse if NotFound in group else schemas.ErrorResponse
        codes = [error.code for error in group]
        if status == 500:  # every route may fail unexpectedly (a bug, logged with its correlation id)
            codes.insert(0, INTERNAL)
        declared[status] = {"description": " / ".join(codes), "content": {"application/json": {"model": model}}}
        if status == Unavailable.status:
            declared[status]["headers"] = {"Retry-After": {"description": "Seconds to wait before retrying"}}
    return declared


def _argument(param: Param) -> inspect.Parameter:
    where = Query if param.location == "query" else Path
    if param.required:
        annotation: Any = Annotated[str, where(description=param.description)]
        return inspect.Parameter(param.name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)
    annotation = Annotated[str | None, where(description=param.description)]
    return inspect.Parameter(param.name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=None)


class _Operation:
    """A stand-in for a route's function: its name (the operation id) and the signature the resolver reads."""

    def __init__(self, route: Route) -> None:
        arguments = [_argument(param) for param in route.parameters]
        if route.body is not None:
            model = getattr(schemas, route.body)
            arguments.append(inspect.Parameter("request", inspect.Parameter.KEYWORD_ONLY, annotation=model))
        self.__name__ = route.name
        self.__signature__ = inspect.Signature(arguments)

    def __call__(self, **_: Any) -> None:
        return None


def _describe() -> APIGatewayHttpResolver:
    app = APIGatewayHttpResolver(enable_validation=True)
    for route in ROUTES:
        if route.ok is not None:
            responses = _responses(getattr(schemas, route.ok), route.errors, route.cached)
            app.route(route.path, route.method, summary=route.summary, responses=responses)(_Operation(route))
    return app


def document(max_batch: int = 100) -> str:
    """The document as JSON, with the parameters' exact forms and the configured batch limit.

    (Powertools adds a 422 to validated routes; this API never answers 422.)
    """
    built = json.loads(_describe().get_openapi_json_schema(title=TITLE, version="1.0.0", description=DESCRIPTION))
    for route in (route for route in ROUTES if route.documented):
        operation = built["paths"][route.openapi_path][route.method.lower()]
        operation.get("responses", {}).pop("422", None)
        for parameter in operation.get("parameters", []):
            param = route.parameter(parameter["name"])
            parameter["schema"] = {**param.schema, "description": param.description}
    schemas_ = built.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        schemas_.pop(name, None)
    batch = schemas_["BatchRequest"]["properties"]
    batch["ips"]["maxItems"] = max_batch
    batch["dataset"] = {"anyOf": [DATASET_NAME, {"type": "null"}], "description": batch["dataset"].get("description")}
    return json.dumps(built, separators=(",", ":"))
