"""The HTTP API: the routes of the lookup function, and where errors become answers (built by ``responses``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.keys import DATASET_NAME_RULE
from fencepost.errors import (
    DependencyUnavailable,
    InvalidRequest,
    MethodNotAllowed,
    NotFound,
    ServiceError,
    Unavailable,
    UnknownDataset,
    check_dataset_name,
)
from fencepost.http.cors import preflight
from fencepost.http.dataset_routes import LISTING_TTL, Listings
from fencepost.http.diff_routes import ChangeFiles, DiffListing
from fencepost.http.lookup_routes import LookupRoutes
from fencepost.http.range_routes import ListingStore, RangeListing
from fencepost.http.responses import NO_STORE, error_response, json_response, text_response
from fencepost.http.routes import ROUTES, allowed_methods
from fencepost.model import DatasetRecord
from fencepost.observability import Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings

# What a route can raise that becomes a 4xx or 5xx answer rather than a 500: see ``refuse``.
Refusal: TypeAlias = ServiceError | DependencyUnavailable


class DatasetReader(ListingStore, Protocol):
    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def list_datasets(self) -> list[DatasetRecord]: ...


@dataclass(frozen=True)
class HttpApi:
    """The routes, served by Powertools' resolver, except ``GET /lookup``, served directly.

    ``GET /lookup`` is nearly all the traffic, and the resolver's routing and response building cost about as
    much as the lookup's own work. The direct path calls the same route function with the same error mapping and
    returns what the resolver would; a test compares the two on every sample event.
    """

    resolver: APIGatewayHttpResolver
    get_lookup: Callable[[Mapping[str, str], str, Mapping[str, str]], Response[str]]
    refuse: Callable[[Refusal], Response[str]]
    unexpected: Callable[[Exception], Response[str]]

    def handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        http = (event.get("requestContext") or {}).get("http") or {}
        if http.get("method") == "GET" and event.get("rawPath") == "/lookup":
            try:
                query, source_ip = event.get("queryStringParameters") or {}, http.get("sourceIp", "")
                response = self.get_lookup(query, source_ip, event.get("headers") or {})
            except (ServiceError, DependencyUnavailable) as error:
                response = self.refuse(error)
            except Exception as error:
                response = self.unexpected(error)
            return {
                "statusCode": response.status_code,
                "body": response.body,
                "isBase64Encoded": False,
                "headers": response.headers,
                "cookies": [],
            }
        result: dict[str, Any] = self.resolver.resolve(event, context)
        return result


def create_app(
    settings: LookupSettings,
    lookup: Lookup,
    datasets: DatasetReader,
    obs: Observability,
    files: Callable[[], ChangeFiles] | None = None,
) -> HttpApi:
    """The app; ``files`` opens the bucket the diffs are read from, on the first request that needs it."""
    app = APIGatewayHttpResolver()
    logger, metrics = obs.logger, obs.metrics
    pool = ThreadPoolExecutor(max_workers=settings.batch_concurrency, thread_name_prefix="lookup")

    def routed_get_lookup() -> Response[str]:
        event = app.current_event
        return routes.get(event.query_string_parameters or {}, event.request_context.http.source_ip, event.headers)

    def post_lookup() -> Response[str]:
        event = app.current_event
        return routes.post(event.body, bool(event.is_base64_encoded), event.request_context.http.source_ip)

    listings = Listings(
        datasets, min(LISTING_TTL, settings.cache_ttl)
    )  # briefly cached: see fencepost.http.dataset_routes

    def get_datasets() -> Response[str]:
        records = [record.to_api() for record in listings.all() if not record.retired]
        return json_response(200, {"datasets": records}, NO_STORE)

    def get_dataset(name: str) -> Response[str]:
        check_dataset_name(name)
        record = listings.get(name)
        if record is None or record.retired:
            raise UnknownDataset(f"no dataset named {name!r}")
        return json_response(200, record.to_api(), NO_STORE)

    budget = settings.response_budget
    listing = RangeListing(lookup, datasets, budget)

    def get_ranges() -> Response[str]:
        query = app.current_event.query_string_parameters or {}
        name = query.get("dataset")
        return text_response(200, listing.answer(settings.default_dataset if name is None else name, query), NO_STORE)

    diffs = DiffListing(listings.get, lambda name: datasets.get_dataset(name, consistent=True), files, budget)

    def get_diff(name: str) -> Response[str]:
        query = app.current_event.query_string_parameters or {}
        return text_response(200, diffs.answer(name, query), NO_STORE)

    openapi_document: list[str] = []  # built on first request

    def openapi() -> Response[str]:
        if not openapi_document:
            from fencepost.http.openapi.document import document

            openapi_document.append(document(settings.max_batch))
        headers = {"Cache-Control": "public, max-age=300"}
        return Response(200, content_types.APPLICATION_JSON, openapi_document[0], headers)

    def log_details(error: ServiceError) -> dict[str, Any]:
        # Messages and details name the looked-up address: personal data that may be kept out of the logs.
        return {"details": error.details, "reason": error.message} if settings.log_addresses else {}

    def refuse(error: Refusal) -> Response[str]:
        if isinstance(error, DependencyUnavailable):  # a dependency failed: answered exactly as Unavailable
            error = Unavailable(str(error))
        level = logger.warning if error.status >= 500 else logger.info
        level("request refused", extra={"code": error.code, "status": error.status, **log_details(error)})
        if error.status >= 500:
            metrics.add_metric(name="Errors", unit=MetricUnit.Count, value=1)
        return error_response(error)

    app.exception_handler([ServiceError, DependencyUnavailable])(refuse)
    routes = LookupRoutes(settings, lookup, metrics, pool, refuse)

    @app.not_found
    def unknown_path(_: NotFoundError) -> Response[str]:
        event = app.current_event
        path, method = event.path, event.http_method.upper()
        methods = allowed_methods(path)
        if methods is None:
            return refuse(NotFound(f"no such path: {path[:200]}", path=path[:200]))
        if method == "OPTIONS":  # a browser's CORS preflight
            return preflight(settings.cors_origins, event.headers, methods)
        if method in methods:  # a path parameter with characters the resolver does not route (an emoji, a surrogate)
            return refuse(InvalidRequest(f"invalid path {path[:200]!r}: {DATASET_NAME_RULE}"))
        return refuse(MethodNotAllowed(f"{method} is not allowed on {path}", allow=methods))

    @app.exception_handler(Exception)
    def unexpected(_: Exception) -> Response[str]:
        logger.exception("unexpected error")
        metrics.add_metric(name="Errors", unit=MetricUnit.Count, value=1)
        body = {"error": {"code": "INTERNAL", "message": "an unexpected error occurred; it has been logged"}}
        return json_response(500, body, NO_STORE)

    served: dict[str, Callable[..., Response[str]]] = {
        "get_lookup": routed_get_lookup,
        "post_lookup": post_lookup,
        "get_datasets": get_datasets,
        "get_dataset": get_dataset,
        "get_ranges": get_ranges,
        "get_diff": get_diff,
        "openapi": openapi,
    }
    unmatched = set(served) ^ {route.name for route in ROUTES}
    if unmatched:
        raise RuntimeError(
            f"every route in fencepost.http.routes needs a function here, and no other: {sorted(unmatched)}"
        )
    for route in ROUTES:  # in table order: Powertools tries dynamic routes in the order they were added
        app.route(route.path, route.method)(served[route.name])

    return HttpApi(app, routes.get, refuse, unexpected)
