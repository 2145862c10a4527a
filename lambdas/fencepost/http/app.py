"""The HTTP API of the lookup function: every route of ``fencepost.http.routes`` served, ``GET /lookup`` directly.

``GET /lookup`` is nearly all the traffic. It is recognised from the event's method and raw path and answered
without Powertools' router, whose import alone costs about 50 ms of every cold start and whose routing costs as much
as the lookup's own work. Every other route goes through the router, built on the first such request: path
parameters, 404 and 405 (with ``Allow``), CORS preflights. Both paths call the same route functions and map errors
the same way (``refusals``); tests compare the two on every sample event.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol

from fencepost.core.storage.keys import DATASET_NAME_RULE
from fencepost.errors import DependencyUnavailable, InvalidRequest, MethodNotAllowed, NotFound, ServiceError
from fencepost.http.build_diff_routes import ChangeFiles, DiffListing
from fencepost.http.cors import preflight
from fencepost.http.dataset_routes import LISTING_TTL, DatasetReader, Listings
from fencepost.http.index_route import answer_index
from fencepost.http.lookup_routes import LookupRoutes
from fencepost.http.paging import BETWEEN_TAG, decode_token
from fencepost.http.range_routes import ListingStore, RangeListing
from fencepost.http.refusals import Refusals
from fencepost.http.responses import NO_STORE, HttpResponse, text_response, without_body
from fencepost.http.routes import ROUTES, allowed_methods
from fencepost.http.version_routes import VersionListing, VersionSource
from fencepost.model import BuildRecord
from fencepost.observability import Observability
from fencepost.reading.lookup import Lookup
from fencepost.reading.past import History, TimelineStore
from fencepost.settings import LookupSettings

if TYPE_CHECKING:
    from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

    from fencepost.http.console import Console
    from fencepost.http.export_routes import ExportLinks, ExportRequests, Exports
    from fencepost.http.reverse_routes import WhereListing
    from fencepost.http.value_routes import ValueListing
    from fencepost.http.version_diff_routes import VersionDiff
    from fencepost.reading.indexes import IndexFiles, ValueIndexes

    class Files(ChangeFiles, IndexFiles, ExportLinks, Protocol):
        """What the routes read from the bucket: the builds' changes, value indexes and exports."""


Event = Mapping[str, Any]
RouteFunction = Callable[..., HttpResponse]  # (event, **path parameters) -> answer


class Store(DatasetReader, ListingStore, VersionSource, TimelineStore, Protocol):
    """What the routes read besides the lookup's own store."""


def _query(event: Event) -> Mapping[str, str]:
    return event.get("queryStringParameters") or {}


def _as_get(event: dict[str, Any], http: dict[str, Any]) -> dict[str, Any]:
    return {**event, "requestContext": {**event["requestContext"], "http": {**http, "method": "GET"}}}


def _source_ip(event: Event) -> str:
    return str(((event.get("requestContext") or {}).get("http") or {}).get("sourceIp", ""))


class HttpApi:
    """The routes by name (``served``), the lookup routes, and how refusals are answered."""

    def __init__(self, served: Mapping[str, RouteFunction], refusals: Refusals, cors_origins: tuple[str, ...]) -> None:
        unmatched = set(served) ^ {route.name for route in ROUTES}
        if unmatched:
            raise RuntimeError(f"every route in fencepost.http.routes needs a function, and no other: {unmatched}")
        self.served, self.refusals, self.cors_origins = served, refusals, cors_origins

    def handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        http = (event.get("requestContext") or {}).get("http") or {}
        if http.get("method") == "HEAD":  # what GET would answer, without its body (RFC 9110, 9.3.2)
            return without_body(self.handle(_as_get(event, http), context))
        if http.get("method") == "GET" and event.get("rawPath") == "/lookup":
            return self.answer(self.served["get_lookup"], event).payload()
        result: dict[str, Any] = self.resolver.resolve(event, context)
        return result

    def answer(self, route: RouteFunction, event: Event, **parameters: str) -> HttpResponse:
        try:
            return route(event, **parameters)
        except (ServiceError, DependencyUnavailable) as error:
            return self.refusals.refuse(error)
        except Exception as error:
            return self.refusals.unexpected(error)

    def unknown_path(self, event: Event) -> HttpResponse:
        path, method = str(event.get("rawPath", "")), str(event["requestContext"]["http"]["method"]).upper()
        methods = allowed_methods(path)
        if methods is None:
            return self.refusals.refuse(NotFound(f"no such path: {path[:200]}", path=path[:200]))
        if method == "OPTIONS":  # a browser's CORS preflight (HEAD, a safelisted method, needs none)
            return preflight(self.cors_origins, event.get("headers") or {}, [m for m in methods if m != "HEAD"])
        if method in methods:  # a path parameter with characters the router does not route (an emoji, a surrogate)
            return self.refusals.refuse(InvalidRequest(f"invalid path {path[:200]!r}: {DATASET_NAME_RULE}"))
        return self.refusals.refuse(MethodNotAllowed(f"{method} is not allowed on {path}", allow=methods))

    @functools.cached_property
    def resolver(self) -> APIGatewayHttpResolver:
        """Powertools' router for every route, built (and imported) on the first request that needs it."""
        from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response

        app = APIGatewayHttpResolver()

        def powertools(answer: HttpResponse) -> Response[str | bytes]:
            body = base64.b64decode(answer.body) if answer.base64 else answer.body  # bytes: Powertools encodes them
            return Response(answer.status_code, answer.content_type, body, answer.headers)

        def routed(route: RouteFunction) -> Callable[..., Response[str | bytes]]:
            return lambda **parameters: powertools(self.answer(route, app.current_event.raw_event, **parameters))

        for route in ROUTES:  # in table order: Powertools tries dynamic routes in the order they were added
            app.route(route.path, route.method)(routed(self.served[route.name]))
        app.not_found(lambda _: powertools(self.unknown_path(app.current_event.raw_event)))
        return app


class _RareRoutes:
    """Reverse lookups, exports and diffs between versions: few requests take them, so their modules are imported,
    and their objects made, on the first request that needs them (not at every cold start)."""

    def __init__(
        self,
        settings: LookupSettings,
        history: History,
        listings: Listings,
        builds: Callable[[str], list[BuildRecord]],
        *,
        files: Callable[[], Files] | None,
        requests: ExportRequests | None,
        pool: Executor,
    ) -> None:
        self.settings, self.history, self.listings = settings, history, listings
        self.builds, self.lookup, self.pool = builds, history.lookup, pool
        self.files, self.requests = files, requests

    @functools.cached_property
    def between(self) -> VersionDiff:
        from fencepost.http.version_diff_routes import VersionDiff

        budget, scan = self.settings.response_budget, self.settings.diff_scan
        in_flight = self.settings.batch_concurrency
        return VersionDiff(
            self.history, self.lookup, self.files, self.pool, budget=budget, scan=scan, in_flight=in_flight
        )

    @functools.cached_property
    def where(self) -> WhereListing:
        from fencepost.http.reverse_routes import WhereListing

        return WhereListing(self.history, self.indexes, self.settings.response_budget)

    @functools.cached_property
    def values(self) -> ValueListing:
        from fencepost.http.value_routes import ValueListing

        return ValueListing(self.history, self.indexes)

    @functools.cached_property
    def indexes(self) -> ValueIndexes:
        from fencepost.reading.indexes import ValueIndexes

        return ValueIndexes(self.files, self.settings.caches.index_bytes)

    @functools.cached_property
    def exports(self) -> Exports:
        from fencepost.http.export_routes import Exports

        limit = self.settings.mmdb_export_ranges
        return Exports(
            self.listings.get,
            self.files,
            self.requests,
            max_mmdb_ranges=limit,
            kept=self.history.kept,
            ranges_of=lambda dataset, version: next(
                (build.ranges for build in self.builds(dataset) if build.build == version), None
            ),
        )


def create_app(
    settings: LookupSettings,
    lookup: Lookup,
    datasets: Store,
    obs: Observability,
    *,
    files: Callable[[], Files] | None = None,
    exports: ExportRequests | None = None,
) -> HttpApi:
    """The app; ``files`` opens the bucket the diffs and indexes are read from, on the first request needing it."""
    refusals = Refusals(obs.logger, obs.metrics, settings.log_addresses)
    pool = ThreadPoolExecutor(max_workers=settings.batch_concurrency, thread_name_prefix="lookup")
    history = History(datasets, lookup, settings.cache_ttl)
    lookups = LookupRoutes(settings, lookup, obs.metrics, pool, refusals.refuse, history=history)
    listings = Listings(datasets, min(LISTING_TTL, settings.cache_ttl))  # briefly cached (http.dataset_routes)
    ranges = RangeListing(lookup, history, datasets, settings.response_budget)
    versions = VersionListing(listings, history.timeline, lookup.version)

    rare = _RareRoutes(settings, history, listings, listings.list_builds, files=files, requests=exports, pool=pool)
    diffs = DiffListing(
        listings.get, lambda name: datasets.get_dataset(name, consistent=True), files, settings.response_budget
    )

    def get_diff(event: Event, name: str) -> HttpResponse:
        query = _query(event)
        chosen = rare.between if "from" in query or "to" in query or _between(query.get("cursor")) else diffs
        return text_response(200, chosen.answer(name, query), NO_STORE)

    def get_ranges(event: Event) -> HttpResponse:
        query = _query(event)
        name = query.get("dataset", settings.default_dataset)
        if "where" in query:
            return rare.where.answer(name, query, (event.get("headers") or {}).get("accept", ""))
        return text_response(200, ranges.answer(name, query), NO_STORE)

    document = functools.cache(lambda: _openapi(settings.max_batch))  # built on its first request, then kept
    console = functools.cache(_console)  # its files read on its first request, then kept

    served: dict[str, RouteFunction] = {
        "get_index": lambda _: answer_index(settings.default_dataset),
        "get_lookup": lambda event: lookups.get(_query(event), _source_ip(event), event.get("headers") or {}),
        "post_lookup": lambda event: lookups.post(
            event.get("body"), bool(event.get("isBase64Encoded")), _source_ip(event)
        ),
        "get_datasets": lambda _: listings.answer_all(),
        "get_dataset": lambda _, name: listings.answer_one(name),
        "get_versions": lambda event, name: text_response(200, versions.answer(name, _query(event)), NO_STORE),
        "get_ranges": get_ranges,
        "get_diff": get_diff,
        "get_values": lambda event, name, column: rare.values.answer_all(name, column, _query(event)),
        "get_value": lambda event, name, column, value: rare.values.answer_one(name, column, value, _query(event)),
        "get_export": lambda event, name: rare.exports.answer(name, _query(event)),
        "openapi": lambda _: HttpResponse(200, document(), {"Cache-Control": "public, max-age=300"}),
        "console": lambda event: console().answer_page(event.get("headers") or {}),
        "console_asset": lambda event, asset: console().answer_asset(
            asset, event.get("headers") or {}, _query(event).get("v")
        ),
    }
    return HttpApi(served, refusals, settings.cors_origins)


def _between(cursor: str | None) -> bool:
    """Whether a diff's cursor pages the diff between two versions (``http.version_diff_routes``)."""
    fields = None if cursor is None else decode_token(cursor, 10)
    return fields is not None and fields[0] == BETWEEN_TAG


def _console() -> Console:
    from fencepost.http.console import Console

    return Console()


def _openapi(max_batch: int) -> str:
    """The OpenAPI document (its module imports pydantic: only when asked for)."""
    from fencepost.http.openapi.document import document

    return document(max_batch)
