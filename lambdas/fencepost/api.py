"""The HTTP API: routes of the lookup function, and the one place where errors become responses."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, Protocol

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from aws_lambda_powertools.metrics import MetricUnit

from fencepost import schemas
from fencepost.core.addresses import AddressError, format_address, parse_address
from fencepost.core.keys import DATASET_NAME_RULE, is_dataset_name
from fencepost.errors import (
    BatchTooLarge,
    InvalidIp,
    InvalidRequest,
    MethodNotAllowed,
    MissingIp,
    NotFound,
    ServiceError,
    Unavailable,
    UnknownDataset,
)
from fencepost.lookup import Answer, Lookup
from fencepost.model import DatasetRecord, VersionInfo
from fencepost.observability import Observability
from fencepost.settings import LookupSettings

# Paths the API serves, with their methods: anything else is 404, a known path with another method is 405.
_PATHS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"/lookup"), ("GET", "POST")),
    (re.compile(r"/datasets"), ("GET",)),
    (re.compile(r"/datasets/[^/]+"), ("GET",)),
    (re.compile(r"/openapi\.json"), ("GET",)),
]

_NO_STORE = {"Cache-Control": "no-store"}


class DatasetReader(Protocol):
    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def list_datasets(self) -> list[DatasetRecord]: ...


def _json(status: int, body: dict[str, Any], headers: dict[str, str]) -> Response[str]:
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=json.dumps(body, ensure_ascii=False, separators=(",", ":")),
        headers=headers,
    )


def _error_response(error: ServiceError) -> Response[str]:
    headers = dict(_NO_STORE)
    if isinstance(error, Unavailable):
        headers["Retry-After"] = str(error.retry_after)
    if isinstance(error, MethodNotAllowed):
        headers["Allow"] = ", ".join(error.details["allow"])
        return _json(error.status, {"error": error.body()}, headers)
    return _json(error.status, {**error.details, "error": error.body()}, headers)


def _responses(ok: type[Any], *errors: type[ServiceError], cached: bool = False) -> dict[int, OpenAPIResponse]:
    """The responses a route can give, for the OpenAPI document: exactly these, each with its stable codes."""
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


def _openapi_document(app: APIGatewayHttpResolver) -> str:
    """Powertools declares a 422 on every validated route; this API answers validation failures with 400."""
    document = json.loads(
        app.get_openapi_json_schema(
            title="Fencepost", version="1.0.0", description="Which range contains this address?"
        )
    )
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            operation.get("responses", {}).pop("422", None)
    for name in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        document.get("components", {}).get("schemas", {}).pop(name, None)
    return json.dumps(document, separators=(",", ":"))


def create_app(
    settings: LookupSettings,
    lookup: Lookup,
    datasets: DatasetReader,
    obs: Observability,
) -> APIGatewayHttpResolver:
    app = APIGatewayHttpResolver(enable_validation=True)
    logger, metrics = obs.logger, obs.metrics
    pool = ThreadPoolExecutor(max_workers=settings.batch_concurrency, thread_name_prefix="lookup")

    def parse(text: str) -> tuple[int, int]:
        if text == "me":
            text = app.current_event.request_context.http.source_ip
        try:
            return parse_address(text)
        except AddressError as error:
            shown = text if len(text) <= 64 else text[:64] + "..."
            raise InvalidIp(f"{shown!r} is not a valid IP address: {error.reason}") from None

    def dataset_name(requested: str | None) -> str:
        return settings.default_dataset if requested is None else requested

    def not_found(family: int, address: int, info: VersionInfo) -> NotFound:
        shown = format_address(family, address)
        return NotFound(
            f"no range of dataset {info.dataset!r} contains {shown}",
            ip=shown,
            dataset=info.dataset,
            version=info.version,
        )

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
        ip: Annotated[str | None, Query(description="The address; `me` for the caller's own.")] = None,
        dataset: Annotated[str | None, Query(description="Dataset name; the service default when omitted.")] = None,
    ) -> Response[str]:
        if not ip:
            raise MissingIp("give the address to look up as ?ip=<address> (or ?ip=me)")
        family, address = parse(ip)
        info = lookup.live(dataset_name(dataset))
        answer = lookup.find(info, family, address)
        metrics.add_metric(name="Lookups", unit=MetricUnit.Count, value=1)
        if answer is None:
            metrics.add_metric(name="NotFound", unit=MetricUnit.Count, value=1)
            raise not_found(family, address, info)
        metrics.add_metric(name="Found", unit=MetricUnit.Count, value=1)
        scope = "private" if ip == "me" else "public"
        return _json(200, answer.body(), {"Cache-Control": f"{scope}, max-age={settings.max_age}"})

    @app.post(
        "/lookup",
        summary="Look up many addresses against one version of a dataset",
        responses=_responses(schemas.BatchResponse, BatchTooLarge, InvalidRequest, UnknownDataset, Unavailable),
    )
    def post_lookup(request: schemas.BatchRequest) -> Response[str]:
        if len(request.ips) > settings.max_batch:
            raise BatchTooLarge(f"a batch holds at most {settings.max_batch} addresses, not {len(request.ips)}")
        info = lookup.live(dataset_name(request.dataset))
        parsed: list[tuple[int, int] | ServiceError] = []
        for text in request.ips:
            try:
                parsed.append(parse(text))
            except InvalidIp as error:
                parsed.append(error)
        wanted = {item for item in parsed if isinstance(item, tuple)}
        found: dict[tuple[int, int], Answer | None] = dict(
            zip(wanted, pool.map(lambda key: lookup.find(info, *key), wanted), strict=True)
        )
        results: list[dict[str, Any]] = []
        for text, item in zip(request.ips, parsed, strict=True):
            if isinstance(item, ServiceError):
                results.append({"ip": text, "error": item.body()})
            elif (answer := found[item]) is not None:
                results.append(answer.body())
            else:
                results.append({"ip": text, "error": not_found(*item, info).body()})
        hits = sum(1 for result in results if "error" not in result)
        metrics.add_metric(name="Lookups", unit=MetricUnit.Count, value=len(wanted))
        metrics.add_metric(name="Found", unit=MetricUnit.Count, value=hits)
        metrics.add_metric(name="NotFound", unit=MetricUnit.Count, value=len(results) - hits)
        return _json(200, {"results": results}, _NO_STORE)

    @app.get("/datasets", summary="List the datasets", responses=_responses(schemas.DatasetList, Unavailable))
    def get_datasets() -> Response[str]:
        records = [record.to_api() for record in datasets.list_datasets() if not record.retired]
        return _json(200, {"datasets": records}, _NO_STORE)

    @app.get(
        "/datasets/<name>",
        summary="One dataset: its live version and the state of its latest load",
        responses=_responses(schemas.Dataset, InvalidRequest, UnknownDataset, Unavailable),
    )
    def get_dataset(name: Annotated[str, Path(description="Dataset name")]) -> Response[str]:
        if not is_dataset_name(name):
            raise InvalidRequest(f"invalid dataset name {name[:80]!r}: {DATASET_NAME_RULE}")
        record = datasets.get_dataset(name, consistent=True)
        if record is None or record.retired:
            raise UnknownDataset(f"no dataset named {name!r}")
        return _json(200, record.to_api(), _NO_STORE)

    openapi_document: list[str] = []  # built on first request: it costs tens of milliseconds

    @app.get("/openapi.json", include_in_schema=False)
    def openapi() -> Response[str]:
        if not openapi_document:
            openapi_document.append(_openapi_document(app))
        headers = {"Cache-Control": "public, max-age=300"}
        return Response(200, content_types.APPLICATION_JSON, openapi_document[0], headers)

    def log_details(error: ServiceError) -> dict[str, Any]:
        if settings.log_addresses:
            return {"details": error.details, "reason": error.message}
        return {"path": app.current_event.path}

    def refuse(error: ServiceError) -> Response[str]:
        level = logger.warning if error.status >= 500 else logger.info
        level("request refused", extra={"code": error.code, "status": error.status, **log_details(error)})
        if error.status >= 500:
            metrics.add_metric(name="Errors", unit=MetricUnit.Count, value=1)
        return _error_response(error)

    app.exception_handler(ServiceError)(refuse)

    @app.exception_handler(RequestValidationError)
    def invalid_request(error: RequestValidationError) -> Response[str]:
        return refuse(_validation_error(error))

    @app.not_found
    def unknown_path(_: NotFoundError) -> Response[str]:
        event = app.current_event
        path, method = event.path, event.http_method.upper()
        for pattern, methods in _PATHS:
            if pattern.fullmatch(path):
                error: ServiceError = MethodNotAllowed(f"{method} is not allowed on {path}", allow=methods)
                break
        else:
            error = NotFound(f"no such path: {path[:200]}", path=path[:200])
        return refuse(error)

    @app.exception_handler(Exception)
    def unexpected(_: Exception) -> Response[str]:
        logger.exception("unexpected error")
        metrics.add_metric(name="Errors", unit=MetricUnit.Count, value=1)
        body = {"error": {"code": "INTERNAL", "message": "an unexpected error occurred; it has been logged"}}
        return _json(500, body, _NO_STORE)

    return app


def _validation_error(error: RequestValidationError) -> ServiceError:
    """Map Powertools' 422 to our 400 codes, with a message that names the offending field."""
    problems = error.errors()
    first = problems[0] if problems else {}
    location = [str(part) for part in first.get("loc", ())]
    if first.get("type") == "json_invalid":
        return InvalidRequest("the request body is not valid JSON")
    where = ".".join(location[1:]) or "request"
    if location[:1] == ["body"] and first.get("type") in ("missing", "model_attributes_type", "dict_type"):
        return InvalidRequest(
            'the body must be a JSON object {"ips": [...], "dataset": "..."}'
            + (f"; {where} is missing" if first.get("type") == "missing" else "")
        )
    return InvalidRequest(f"{where}: {first.get('msg', 'invalid value')}")
