"""Every route's function, by name: ``Endpoints`` has one method for each route of ``fencepost.http.routes``, named
as the route is (``get_lookup`` answers ``GET /lookup``), taking the event and the path's parameters.

A route's method reads what it needs from the event (``GET /lookup`` parses it once, into ``GetLookup``) and hands it
to the object that answers it. The routes few requests take (reverse lookups, exports, diffs between versions) are
made, and their modules imported, on the first request that needs them (``Rare``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, Protocol

from fencepost.core.space.forwarded import parse_trust
from fencepost.http.build_diff_routes import ChangeFiles, DiffListing
from fencepost.http.dataset_routes import Listings
from fencepost.http.index_route import answer_index
from fencepost.http.lookup_request import caller_ip, get_lookup
from fencepost.http.lookup_routes import LookupRoutes
from fencepost.http.paging import BETWEEN_TAG, decode_token
from fencepost.http.range_routes import RangeListing
from fencepost.http.responses import NO_STORE, HttpResponse, text_response
from fencepost.http.version_routes import VersionListing
from fencepost.model import BuildRecord
from fencepost.reading.joining import Joins
from fencepost.reading.past import History
from fencepost.settings import LookupSettings

if TYPE_CHECKING:
    from fencepost.http.console import Console
    from fencepost.http.export_routes import ExportLinks, ExportRequests, Exports
    from fencepost.http.job_routes import JobBucket, JobStatuses
    from fencepost.http.key_routes import KeyReads
    from fencepost.http.reverse_routes import WhereListing
    from fencepost.http.value_routes import ValueListing
    from fencepost.http.version_diff_routes import VersionDiff
    from fencepost.reading.indexes import IndexFiles, ValueIndexes
    from fencepost.reading.keyed_tables import KeyedFiles

    class Files(ChangeFiles, IndexFiles, ExportLinks, KeyedFiles, Protocol):
        """What the routes read from the bucket: the builds' changes, value indexes, exports and keyed tables."""


Event = Mapping[str, Any]


def _query(event: Event) -> Mapping[str, str]:
    return event.get("queryStringParameters") or {}


def _headers(event: Event) -> dict[str, str]:
    return event.get("headers") or {}


class Rare:
    """Reverse lookups, exports, diffs between versions and enrichment jobs: few requests take them, so their modules
    are imported, and their objects made, on the first request that needs them (not at every cold start)."""

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
        jobs: Callable[[], JobBucket] | None = None,
        joins: Joins,
    ) -> None:
        self.settings, self.history, self.listings, self.joins = settings, history, listings, joins
        self.builds, self.lookup, self.pool = builds, history.lookup, pool
        self.files, self.requests, self.jobs = files, requests, jobs

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

        return WhereListing(self.history, self.indexes, self.joins, self.settings.response_budget)

    @functools.cached_property
    def values(self) -> ValueListing:
        from fencepost.http.value_routes import ValueListing

        return ValueListing(self.history, self.indexes)

    @functools.cached_property
    def indexes(self) -> ValueIndexes:
        from fencepost.reading.indexes import ValueIndexes

        return ValueIndexes(self.files, self.settings.caches.index_bytes)

    @functools.cached_property
    def keys(self) -> KeyReads:
        from fencepost.http.key_routes import KeyReads

        return KeyReads(self.joins, self.settings.max_age)

    @functools.cached_property
    def statuses(self) -> JobStatuses:
        from fencepost.http.job_routes import JobStatuses

        return JobStatuses(self.jobs, self.pool)

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
            parquet=self.settings.tables_queue is not None,
            version_of=self.lookup.version,
        )


class Endpoints:
    """One method per route, named as the route: ``(event, **path parameters) -> HttpResponse``."""

    def __init__(
        self,
        settings: LookupSettings,
        lookups: LookupRoutes,
        *,
        listings: Listings,
        ranges: RangeListing,
        versions: VersionListing,
        diffs: DiffListing,
        rare: Rare,
    ) -> None:
        self.settings, self.lookups, self.listings, self.ranges = settings, lookups, listings, ranges
        self.versions, self.diffs, self.rare = versions, diffs, rare
        self.trust = parse_trust(settings.trusted_proxies, settings.forwarded_entries)

    def get_lookup(self, event: Event) -> HttpResponse:
        return self.lookups.get(get_lookup(event, self.settings.default_dataset, self.trust))

    def post_lookup(self, event: Event) -> HttpResponse:
        return self.lookups.post(event.get("body"), bool(event.get("isBase64Encoded")), caller_ip(event, self.trust))

    def get_index(self, _event: Event) -> HttpResponse:
        return answer_index(self.settings.default_dataset)

    def get_datasets(self, _event: Event) -> HttpResponse:
        return self.listings.answer_all()

    def get_dataset(self, _event: Event, name: str) -> HttpResponse:
        return self.listings.answer_one(name)

    def get_versions(self, event: Event, name: str) -> HttpResponse:
        return text_response(200, self.versions.answer(name, _query(event)), NO_STORE)

    def get_ranges(self, event: Event) -> HttpResponse:
        query = _query(event)
        name = query.get("dataset", self.settings.default_dataset)
        if "where" in query:
            return self.rare.where.answer(name, query, _headers(event).get("accept", ""))
        return text_response(200, self.ranges.answer(name, query), NO_STORE)

    def get_diff(self, event: Event, name: str) -> HttpResponse:
        query = _query(event)
        between = "from" in query or "to" in query or _between(query.get("cursor"))
        chosen = self.rare.between if between else self.diffs
        return text_response(200, chosen.answer(name, query), NO_STORE)

    def get_values(self, event: Event, name: str, column: str) -> HttpResponse:
        return self.rare.values.answer_all(name, column, _query(event))

    def get_value(self, event: Event, name: str, column: str, value: str) -> HttpResponse:
        return self.rare.values.answer_one(name, column, value, _query(event))

    def get_key(self, event: Event, name: str, key: str) -> HttpResponse:
        return self.rare.keys.answer(name, key, _query(event))

    def get_export(self, event: Event, name: str) -> HttpResponse:
        return self.rare.exports.answer(name, _query(event))

    def get_jobs(self, event: Event) -> HttpResponse:
        return self.rare.statuses.answer_all(_query(event))

    def get_job(self, _event: Event, job: str) -> HttpResponse:
        return self.rare.statuses.answer_one(job)

    def openapi(self, _event: Event) -> HttpResponse:
        return HttpResponse(200, _openapi(self.settings.max_batch), {"Cache-Control": "public, max-age=300"})

    def console(self, event: Event) -> HttpResponse:
        return _console().answer_page(_headers(event))

    def console_asset(self, event: Event, asset: str) -> HttpResponse:
        return _console().answer_asset(asset, _headers(event), _query(event).get("v"))


def _between(cursor: str | None) -> bool:
    """Whether a diff's cursor pages the diff between two versions (``http.version_diff_routes``)."""
    fields = None if cursor is None else decode_token(cursor, 10)
    return fields is not None and fields[0] == BETWEEN_TAG


@functools.cache  # its files read on its first request, then kept
def _console() -> Console:
    from fencepost.http.console import Console

    return Console()


@functools.cache  # built on its first request, then kept
def _openapi(max_batch: int) -> str:
    """The OpenAPI document (its module imports pydantic: only when asked for)."""
    from fencepost.http.openapi.document import document

    return document(max_batch)
