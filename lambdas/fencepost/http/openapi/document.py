"""The OpenAPI document of the HTTP API, built on its first request and kept.

The runtime app declares no parameter or response models: Powertools' OpenAPI machinery and pydantic cost
about 60 ms of cold start, and the validation middleware as much as the rest of a lookup. So the document is
built here by a resolver that exists only to describe the API: the routes of ``fencepost.http.routes`` (the table
the runtime app serves), their parameters, and exactly the responses each can give.
"""

from __future__ import annotations

import inspect
import json
import keyword
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse

from fencepost.errors import NotFound, ServiceError, Unavailable
from fencepost.http.lookup_params import MAX_DATASETS
from fencepost.http.openapi import schemas
from fencepost.http.parameters import DATASET_NAME, Param
from fencepost.http.routes import ROUTES, Route
from fencepost.reading.fields import MAX_PATHS, PATH_PATTERN

TITLE = "Fencepost"
INTERNAL = "INTERNAL"  # the code of an unexpected fault (not a ServiceError: any exception)
DESCRIPTION = "Which range contains this address, and what is known about it?"


def _responses(
    ok: type[Any], errors: tuple[type[ServiceError], ...], cached: bool, deferred: bool = False
) -> dict[int, OpenAPIResponse]:
    """The responses a route can give: exactly these, each with its stable codes. A ``deferred`` route answers 202
    while its result is being made, and 303 to it once made, instead of 200."""
    success: OpenAPIResponse = {"description": "Success", "content": {"application/json": {"model": ok}}}
    if cached:
        success["headers"] = {"Cache-Control": {"description": "public (private for ip=me), max-age=<seconds>"}}
    declared: dict[int, OpenAPIResponse] = {200: success}
    if deferred:
        content: Any = {"application/json": {"model": ok}}
        waiting: OpenAPIResponse = {"description": "Being made: ask again later", "content": content}
        waiting["headers"] = {"Retry-After": {"description": "Seconds to wait before asking again"}}
        made: OpenAPIResponse = {"description": "Made: follow Location", "content": content}
        made["headers"] = {"Location": {"description": "The link to the result, valid for 15 minutes"}}
        declared = {202: waiting, 303: made}
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


CONDITIONAL = (
    "Answers, found or `NOT_FOUND`, carry a weak `ETag` (from the live version of every dataset named, and for "
    "`ip=me` the caller's address) and `Last-Modified` (when the newest of those versions went live). "
    "`If-None-Match` with the current tag (or in a list of tags, or `*`; compared weakly) answers `304 Not "
    "Modified` with no body. `If-Modified-Since` is not honoured: revalidate with the tag."
)


def _string_header(description: str) -> dict[str, Any]:
    return {"description": description, "schema": {"type": "string"}}


def _conditional(operation: dict[str, Any]) -> None:
    """Documents a conditional route's validators, ``If-None-Match`` and its 304
    (see ``fencepost.http.conditional``)."""
    validators = {
        "ETag": _string_header('A weak entity tag, `W/"<hash>"`: the same for the same answer in every container'),
        "Last-Modified": _string_header("When the newest live version went live (absent when not known)"),
    }
    operation["description"] = CONDITIONAL
    operation.setdefault("parameters", []).append(
        {
            "name": "If-None-Match",
            "in": "header",
            "required": False,
            "description": "Entity tags the client holds, or `*`: a match answers 304",
            "schema": {"type": "string"},
        }
    )
    responses = operation["responses"]
    responses["200"].setdefault("headers", {}).update(validators)
    responses["404"].setdefault("headers", {}).update(validators)  # NOT_FOUND only
    cache = responses["200"]["headers"].get("Cache-Control", _string_header("As the 200 would have had"))
    responses["304"] = {
        "description": "Not Modified: the tag matched; no body",
        "headers": {"Cache-Control": cache, **validators},
    }


def _argument(param: Param) -> inspect.Parameter:
    where = Query if param.location == "query" else Path
    # A parameter named like a Python keyword (``from``) is an argument under another name, aliased to its own
    name, alias = (f"{param.name}_", param.name) if keyword.iskeyword(param.name) else (param.name, None)
    if param.required:
        annotation: Any = Annotated[str, where(description=param.description, alias=alias)]
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)
    annotation = Annotated[str | None, where(description=param.description, alias=alias)]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=None)


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
            responses = _responses(getattr(schemas, route.ok), route.errors, route.cached, route.deferred)
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
        if route.conditional:
            _conditional(operation)
    schemas_ = built.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        schemas_.pop(name, None)
    batch = schemas_["BatchRequest"]["properties"]
    batch["ips"]["maxItems"] = max_batch
    batch["dataset"] = {"anyOf": [DATASET_NAME, {"type": "null"}], "description": batch["dataset"].get("description")}
    names = {"type": "array", "items": DATASET_NAME, "minItems": 1, "maxItems": MAX_DATASETS, "uniqueItems": True}
    batch["datasets"] = {"anyOf": [names, {"type": "null"}], "description": batch["datasets"].get("description")}
    paths = {"type": "array", "items": {"type": "string", "pattern": f"^{PATH_PATTERN}$"}, "minItems": 1}
    paths["maxItems"] = MAX_PATHS
    batch["fields"] = {"anyOf": [paths, {"type": "null"}], "description": batch["fields"].get("description")}
    return json.dumps(built, separators=(",", ":"))
