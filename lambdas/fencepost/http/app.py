"""The HTTP API of the lookup function: every route of ``fencepost.http.routes`` served, ``GET /lookup`` directly.

``GET /lookup`` is nearly all the traffic. It is recognised from the event's method and raw path and answered
without Powertools' router, whose import alone costs about 50 ms of every cold start and whose routing costs as much
as the lookup's own work. Every other route goes through the router, built on the first such request: path
parameters, 404 and 405 (with ``Allow``), CORS preflights. Both paths call the same methods
(``fencepost.http.endpoints``) and map errors the same way (``refusals``); tests compare the two on every sample
event. Each request, whichever way it went, gets its access line (``access_log``).
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol

from fencepost.core.space.forwarded import parse_trust
from fencepost.core.storage.keys import DATASET_NAME_RULE
from fencepost.errors import DependencyUnavailable, InvalidRequest, MethodNotAllowed, NotFound, ServiceError
from fencepost.http.access_log import AccessLog
from fencepost.http.build_diff_routes import DiffListing
from fencepost.http.cors import preflight
from fencepost.http.dataset_routes import LISTING_TTL, DatasetReader, Listings
from fencepost.http.endpoints import Endpoints, Rare
from fencepost.http.lookup_routes import LookupRoutes
from fencepost.http.range_routes import ListingStore, RangeListing
from fencepost.http.refusals import Refusals
from fencepost.http.responses import HttpResponse, without_body
from fencepost.http.routes import ROUTES, Route
from fencepost.http.version_routes import VersionListing
from fencepost.observability import Observability
from fencepost.reading.joining import Joins
from fencepost.reading.keyed_tables import KeyedTables
from fencepost.reading.lookup import Lookup
from fencepost.reading.past import History, TimelineStore
from fencepost.settings import LookupSettings

if TYPE_CHECKING:
    from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

    from fencepost.http.endpoints import Files
    from fencepost.http.export_routes import ExportRequests
    from fencepost.http.job_routes import JobBucket


Event = Mapping[str, Any]
RouteFunction = Callable[..., HttpResponse]  # (event, **path parameters) -> answer


class Store(DatasetReader, ListingStore, TimelineStore, Protocol):
    """What the routes read besides the lookup's own store."""


def _pattern(path: str) -> re.Pattern[str]:
    # A path parameter is one non-empty segment; everything else is literal.
    return re.compile(re.sub(r"<\w+>", "[^/]+", re.escape(path)))


def _methods_by_path(routes: tuple[Route, ...]) -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    methods: dict[str, list[str]] = {}
    for route in routes:
        methods.setdefault(route.path, []).append(route.method)
    return tuple((_pattern(path), tuple(listed)) for path, listed in methods.items())


_SERVED = _methods_by_path(ROUTES)


def allowed_methods(path: str) -> tuple[str, ...] | None:
    """The methods served on ``path``, in table order, HEAD after GET (answered as GET without its body); None when
    no route has that path.

    For a request the app did not route: None is a 404, anything else a 405 that lists these in ``Allow``.
    """
    for pattern, methods in _SERVED:
        if pattern.fullmatch(path):
            return tuple(m for method in methods for m in ((method, "HEAD") if method == "GET" else (method,)))
    return None


def _as_get(event: dict[str, Any], http: dict[str, Any]) -> dict[str, Any]:
    return {**event, "requestContext": {**event["requestContext"], "http": {**http, "method": "GET"}}}


class HttpApi:
    """Each request to its route's method of ``Endpoints`` (``GET /lookup`` directly), and how refusals are answered."""

    def __init__(
        self, endpoints: Endpoints, refusals: Refusals, cors_origins: tuple[str, ...], access: AccessLog | None = None
    ) -> None:
        methods = {name for name in vars(type(endpoints)) if not name.startswith("_")}
        unmatched = methods ^ {route.name for route in ROUTES}
        if unmatched:
            raise RuntimeError(f"every route in fencepost.http.routes needs a method, and no other: {unmatched}")
        self.endpoints: Endpoints = endpoints
        self.refusals, self.cors_origins, self.access = refusals, cors_origins, access

    def handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """The answer to one request, its access line written (``http.access_log``)."""
        response = self._answer(event, context)
        if self.access is not None:
            self.access.record(event, response)
        return response

    def _answer(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        http = (event.get("requestContext") or {}).get("http") or {}
        if http.get("method") == "HEAD":  # what GET would answer, without its body (RFC 9110, 9.3.2)
            return without_body(self._answer(_as_get(event, http), context))
        if http.get("method") == "GET" and event.get("rawPath") == "/lookup":
            try:
                return self.endpoints.get_lookup(event).payload()
            except Exception as error:  # every error is answered (refused)
                return self.refused(error).payload()
        result: dict[str, Any] = self.resolver.resolve(event, context)
        return result

    def answer(self, route: RouteFunction, event: Event, **parameters: str) -> HttpResponse:
        try:
            return route(event, **parameters)
        except Exception as error:  # every error is answered (refused)
            return self.refused(error)

    def refused(self, error: Exception) -> HttpResponse:
        """A refusal (4xx, 503) for a service's error, a logged 500 for anything else."""
        if isinstance(error, (ServiceError, DependencyUnavailable)):
            return self.refusals.refuse(error)
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
            app.route(route.path, route.method)(routed(getattr(self.endpoints, route.name)))
        app.not_found(lambda _: powertools(self.unknown_path(app.current_event.raw_event)))
        return app


def create_app(
    settings: LookupSettings,
    lookup: Lookup,
    datasets: Store,
    obs: Observability,
    *,
    files: Callable[[], Files] | None = None,
    exports: ExportRequests | None = None,
    jobs: Callable[[], JobBucket] | None = None,
) -> HttpApi:
    """The app; ``files`` opens the bucket the diffs and indexes are read from, ``jobs`` the enrichment jobs', on the
    first request needing it."""
    refusals = Refusals(obs.logger, obs.metrics, settings.log_addresses)
    pool = ThreadPoolExecutor(max_workers=settings.batch_concurrency, thread_name_prefix="lookup")
    history = History(datasets, lookup, settings.cache_ttl)
    joins = Joins(history, KeyedTables(files, settings.caches.keyed_bytes))
    lookups = LookupRoutes(settings, lookup, obs.metrics, pool, refusals.refuse, history=history, joins=joins)
    listings = Listings(datasets, min(LISTING_TTL, settings.cache_ttl))  # briefly cached (http.dataset_routes)
    ranges = RangeListing(lookup, history, datasets, settings.response_budget)
    versions = VersionListing(listings, history.timeline, lookup.version)
    builds = listings.list_builds
    rare = Rare(settings, history, listings, builds, files=files, requests=exports, pool=pool, jobs=jobs, joins=joins)
    diffs = DiffListing(
        listings.get, lambda name: datasets.get_dataset(name, consistent=True), files, settings.response_budget
    )
    endpoints = Endpoints(
        settings, lookups, listings=listings, ranges=ranges, versions=versions, diffs=diffs, rare=rare
    )
    access = AccessLog(
        obs.logger, parse_trust(settings.trusted_proxies, settings.forwarded_entries), settings.log_addresses
    )
    return HttpApi(endpoints, refusals, settings.cors_origins, access)
