"""The HTTP API: the routes of the lookup function, and where errors become answers (built by ``responses``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.metrics import MetricUnit

from fencepost.batch import Result, batch_answer, batch_request, request_body
from fencepost.conditional import Validators, header
from fencepost.core.addresses import AddressError, format_address, parse_address
from fencepost.core.keys import DATASET_NAME_RULE, is_dataset_name
from fencepost.core.reserved import reserved_field
from fencepost.cors import preflight
from fencepost.errors import (
    BatchTooLarge,
    DependencyUnavailable,
    InvalidIp,
    InvalidRequest,
    MethodNotAllowed,
    MissingIp,
    NotFound,
    ServiceError,
    Unavailable,
    UnknownDataset,
)
from fencepost.fields import Selection, parse_text, select
from fencepost.listing import LISTING_TTL, Listings
from fencepost.lookup import Lookup
from fencepost.model import DatasetRecord, VersionInfo
from fencepost.observability import Observability
from fencepost.ranges_api import ListingStore, RangeListing
from fencepost.responses import NO_STORE, bounded_json_response, error_response, json_response, text_response
from fencepost.routes import ROUTES, allowed_methods
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
) -> HttpApi:
    app = APIGatewayHttpResolver()
    logger, metrics = obs.logger, obs.metrics
    pool = ThreadPoolExecutor(max_workers=settings.batch_concurrency, thread_name_prefix="lookup")

    def parse(text: str, source_ip: str) -> tuple[int, int]:
        if text == "me":
            text = source_ip
        try:
            return parse_address(text)
        except AddressError as error:
            shown = text if len(text) <= 64 else text[:64] + "..."
            raise InvalidIp(f"{shown!r} is not a valid IP address: {error.reason}") from None

    def dataset_name(requested: str | None) -> str:
        return settings.default_dataset if requested is None else requested

    def not_found(family: int, address: int, info: VersionInfo, **beside: Any) -> NotFound:
        shown = format_address(family, address)
        message = f"no range of dataset {info.dataset!r} contains {shown}"
        return NotFound(message, ip=shown, dataset=info.dataset, version=info.version, **beside)

    def selected_error(error: NotFound, selection: Selection | None) -> NotFound:
        """A NOT_FOUND whose fields beside the error (``ip`` always) are only those selected."""
        if selection is not None:
            error.details = select(error.details, selection)
        return error

    # Each route's function is named by its entry in fencepost.routes, which registers it (see the end).

    def get_lookup(query: Mapping[str, str], source_ip: str, request_headers: Mapping[str, str]) -> Response[str]:
        ip = query.get("ip")
        if not ip:
            raise MissingIp("give the address to look up as ?ip=<address> (or ?ip=me)")
        family, address = parse(ip, source_ip)
        selection = None if query.get("fields") is None else parse_text(query["fields"])
        pointer = lookup.live_pointer(dataset_name(query.get("dataset")))
        # The answer's validators, from the cached live pointer: a 304 reads no version and no range.
        me = format_address(family, address) if ip == "me" else None
        validators = Validators.of([(pointer.dataset, pointer.version, pointer.live_since)], me)
        scope = "private" if ip == "me" else "public"
        cache = {"Cache-Control": f"{scope}, max-age={settings.max_age}"}
        if validators.not_modified_by(header(request_headers, "if-none-match")):
            metrics.add_metric(name="NotModified", unit=MetricUnit.Count, value=1)
            return Response(304, None, "", {**cache, **validators.headers()})
        info = lookup.version_of(pointer)
        answer = lookup.find(info, family, address)
        metrics.add_metric(name="Lookups", unit=MetricUnit.Count, value=1)
        if answer is None:
            metrics.add_metric(name="NotFound", unit=MetricUnit.Count, value=1)
            error = not_found(family, address, info, **reserved_field(family, address))
            missing = refuse(selected_error(error, selection))  # with the validators
            missing.headers.update(validators.headers())
            return missing
        metrics.add_metric(name="Found", unit=MetricUnit.Count, value=1)
        headers = {**cache, **validators.headers()}
        body = answer.body() if selection is None else select(answer.body(), selection)
        return bounded_json_response(200, body, headers, settings.response_budget)

    def routed_get_lookup() -> Response[str]:
        event = app.current_event
        return get_lookup(event.query_string_parameters or {}, event.request_context.http.source_ip, event.headers)

    def post_lookup() -> Response[str]:
        event = app.current_event
        ips, dataset, selection = batch_request(request_body(event.body, bool(event.is_base64_encoded)))
        source_ip = event.request_context.http.source_ip
        if len(ips) > settings.max_batch:
            raise BatchTooLarge(f"a batch holds at most {settings.max_batch} addresses, not {len(ips)}")
        info = lookup.live(dataset_name(dataset))
        parsed: list[tuple[int, int] | InvalidIp] = []
        for text in ips:
            try:
                parsed.append(parse(text, source_ip))
            except InvalidIp as error:
                parsed.append(error)
        addresses = [item for item in parsed if isinstance(item, tuple)]  # invalid addresses are not lookups
        answers = lookup.find_many(info, addresses, pool)
        found = iter(answers)
        results: list[Result] = []
        for text, item in zip(ips, parsed, strict=True):
            if isinstance(item, InvalidIp):
                results.append((text, {"ip": text, "error": item.body()}))
            elif (answer := next(found)) is not None:
                results.append((text, answer.body()))
            else:
                results.append((text, {"ip": text, **reserved_field(*item), "error": not_found(*item, info).body()}))
        if selection is not None:  # before the budget: the selected answers are what is sent
            results = [(text, select(body, selection)) for text, body in results]
        hits = sum(1 for answer in answers if answer is not None)
        metrics.add_metric(name="Lookups", unit=MetricUnit.Count, value=len(addresses))
        metrics.add_metric(name="Found", unit=MetricUnit.Count, value=hits)
        metrics.add_metric(name="NotFound", unit=MetricUnit.Count, value=len(addresses) - hits)
        return text_response(200, batch_answer(results, settings.response_budget), NO_STORE)

    listings = Listings(datasets, min(LISTING_TTL, settings.cache_ttl))  # briefly cached: see fencepost.listing

    def get_datasets() -> Response[str]:
        records = [record.to_api() for record in listings.all() if not record.retired]
        return json_response(200, {"datasets": records}, NO_STORE)

    def get_dataset(name: str) -> Response[str]:
        if not is_dataset_name(name):
            raise InvalidRequest(f"invalid dataset name {name[:80]!r}: {DATASET_NAME_RULE}")
        record = listings.get(name)
        if record is None or record.retired:
            raise UnknownDataset(f"no dataset named {name!r}")
        return json_response(200, record.to_api(), NO_STORE)

    listing = RangeListing(lookup, datasets, settings.response_budget)

    def get_ranges() -> Response[str]:
        query = app.current_event.query_string_parameters or {}
        return text_response(200, listing.answer(dataset_name(query.get("dataset")), query), NO_STORE)

    openapi_document: list[str] = []  # built on first request

    def openapi() -> Response[str]:
        if not openapi_document:
            from fencepost.openapi import document

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
        "openapi": openapi,
    }
    unmatched = set(served) ^ {route.name for route in ROUTES}
    if unmatched:
        raise RuntimeError(f"every route in fencepost.routes needs a function here, and no other: {sorted(unmatched)}")
    for route in ROUTES:  # in table order: Powertools tries dynamic routes in the order they were added
        app.route(route.path, route.method)(served[route.name])

    return HttpApi(app, get_lookup, refuse, unexpected)
