"""``GET /datasets/{name}/versions`` (``fencepost.http.version_routes``): kept versions, the latest live first, each
with every period it was live, paged by an opaque cursor; deleted versions are not listed."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest

from fencepost.core.folders.backfill import Dated
from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.versions.data_dates import DataDate
from fencepost.core.versions.history import Event, Timeline, format_instant
from fencepost.errors import InvalidRequest, UnknownDataset
from fencepost.http.dataset_routes import DatasetReader, Listings
from fencepost.http.version_routes import VersionListing
from fencepost.model import BuildRecord, BuildState, DatasetRecord, ObjectRef, VersionInfo

DAY = 86_400.0
T0 = 1_790_000_000.0


class Store:
    def __init__(self) -> None:
        # Versions 1 to 5 a day apart; version 2 rolled back to on day 5, version 5 live again on day 6
        self.events = [Event(T0 + day * DAY, version) for day, version in enumerate([1, 2, 3, 4, 5, 2, 5])]
        self.events[0] = Event(T0, 1, gone=True)  # version 1: deleted
        self.record = DatasetRecord("geo", live=5, previous=2, retain_days=30)
        self.builds = [
            BuildRecord("geo", v, BuildState.LIVE if v in (2, 5) else BuildState.DELETING, ranges=10 * v)
            for v in (2, 3, 4, 5)
        ]
        self.builds[1].delete_after = T0 + 40 * DAY
        self.builds[1].objects = [ObjectRef("geo/a.csv", "e1", 12)]
        self.dated: list[Dated] = []

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        return self.record if name == "geo" else None

    def get_timeline(self, dataset: str) -> Timeline:
        return Timeline(self.events)

    def list_builds(self, dataset: str, *, fresh: bool = False) -> list[BuildRecord]:
        return self.builds

    def list_dated(self, dataset: str) -> list[Dated]:
        return self.dated


def _listing() -> VersionListing:
    store = Store()
    return VersionListing(store, store.get_timeline)


def _day(day: int) -> str:
    return format_instant(T0 + day * DAY)


def _page(query: dict[str, str]) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(_listing().answer("geo", query))
    return document


def test_kept_versions_are_listed_latest_live_first_with_every_period() -> None:
    page = _page({})
    versions = page["versions"]
    assert [v["version"] for v in versions] == [5, 2, 4, 3]  # version 1 is deleted
    assert versions[0]["live"] == [{"from": _day(6), "until": None}, {"from": _day(4), "until": _day(5)}]
    assert versions[1]["live"] == [{"from": _day(5), "until": _day(6)}, {"from": _day(1), "until": _day(2)}]
    assert [v["kept_until"] for v in versions] == [None, None, None, _day(40)]
    assert versions[3]["objects"] == [{"key": "geo/a.csv", "etag": "e1", "size": 12}]
    assert (page["live"], page["retain_days"], page["next"]) == (5, 30, None)


def test_pages_follow_one_another_without_gaps_or_repeats() -> None:
    seen, query = [], {"limit": "1"}
    while True:
        page = _page(query)
        seen += [v["version"] for v in page["versions"]]
        if page["next"] is None:
            break
        query = {"limit": "1", "cursor": str(page["next"])}
    assert seen == [5, 2, 4, 3]


@pytest.mark.parametrize("query", [{"cursor": "nope"}, {"limit": "0"}, {"limit": "x"}])
def test_a_bad_cursor_or_limit_is_refused(query: dict[str, str]) -> None:
    with pytest.raises(InvalidRequest):
        _page(query)


def test_an_unknown_dataset_is_refused() -> None:
    with pytest.raises(UnknownDataset):
        _listing().answer("nope", {})


def test_dated_folders_are_listed_with_what_became_of_each() -> None:
    store = Store()
    # Version 6 placed at a date before version 1; version 7 abandoned while writing; version 8 still writing
    store.events.append(Event(T0 - 30 * DAY, 6, dated=True))
    store.builds += [
        BuildRecord("geo", 6, BuildState.LIVE, dated="2026-09-01"),
        BuildRecord("geo", 7, BuildState.ABANDONED, dated="2026-09-15"),
        BuildRecord("geo", 8, BuildState.WRITING, dated="2026-09-20"),
    ]
    store.dated = [
        Dated("2026-09-01", "a", 6),
        Dated("2026-09-15", "b", 7),
        Dated("2026-09-20", "c", 8),
        Dated("2026-09-30", "d", 9, "FAILED", "2026-09-30 is in the future", refused=True),
    ]
    page = json.loads(VersionListing(store, store.get_timeline).answer("geo", {}))
    assert [(d["date"], d["version"], d["status"]) for d in page["dated"]] == [
        ("2026-09-01", 6, "READY"),
        ("2026-09-15", 7, "FAILED"),
        ("2026-09-20", 8, "LOADING"),
        ("2026-09-30", 9, "FAILED"),
    ]
    assert page["dated"][1]["reason"] == "the build failed: see the report of version 7"
    assert [(v["version"], v["dated"]) for v in page["versions"]][-1] == (6, "2026-09-01")


def test_the_live_versions_columns_and_indexed_columns_are_listed() -> None:
    store = Store()
    asked: list[tuple[str, int]] = []

    def version(dataset: str, number: int) -> VersionInfo:
        asked.append((dataset, number))
        return VersionInfo(dataset, number, ("asn", "country"), {}, indexed=("country",))

    page = json.loads(VersionListing(store, store.get_timeline, version).answer("geo", {}))
    assert (page["columns"], page["indexed"], asked) == (["asn", "country"], ["country"], [("geo", 5)])
    store.record = DatasetRecord("geo", live=None)  # nothing served: nothing to name
    empty = json.loads(VersionListing(store, store.get_timeline, version).answer("geo", {}))
    assert (empty["columns"], empty["indexed"], len(asked)) == (None, None, 1)
    assert (empty["key"], empty["keyed_joins"]) == (None, None)


def test_a_keyed_dataset_lists_its_key_and_a_range_dataset_the_keyed_datasets_it_joins() -> None:
    store = Store()
    join = KeyedJoin("as-names", "asn", ("name",), "as_")

    def keyed(dataset: str, number: int) -> VersionInfo:
        return VersionInfo(dataset, number, ("asn", "name"), {}, keyed="asn")

    def joining(dataset: str, number: int) -> VersionInfo:
        return VersionInfo(dataset, number, ("asn",), {}, keyed_joins=(join,))

    names = json.loads(VersionListing(store, store.get_timeline, keyed).answer("geo", {}))
    assert (names["key"], names["keyed_joins"]) == ("asn", [])
    ranges = json.loads(VersionListing(store, store.get_timeline, joining).answer("geo", {}))
    assert ranges["key"] is None
    assert ranges["keyed_joins"] == [{"dataset": "as-names", "on": "asn", "columns": ["name"], "prefix": "as_"}]


def test_a_live_version_that_cannot_be_read_lists_no_columns() -> None:
    store = Store()

    def unreadable(dataset: str, number: int) -> VersionInfo:
        raise UnknownDataset(f"version {number} of dataset {dataset!r} is not readable")

    page = json.loads(VersionListing(store, store.get_timeline, unreadable).answer("geo", {}))
    assert (page["columns"], page["indexed"]) == (None, None)
    assert [version["version"] for version in page["versions"]] == [5, 2, 4, 3]


def test_a_live_version_without_a_build_record_is_listed_with_the_records_dates() -> None:
    store = Store()
    store.builds = [build for build in store.builds if build.build != 5]  # written before build records were kept
    store.record.built_at = "2026-11-24T10:31:02+00:00"
    store.record.data_date = DataDate("2026-11-20", "name", "geo/a-20261120.csv")
    page = json.loads(VersionListing(store, store.get_timeline).answer("geo", {}))
    (live,) = [v for v in page["versions"] if v["version"] == 5]
    assert live["built_at"] == "2026-11-24T10:31:02+00:00"
    assert live["data_date"] == {"date": "2026-11-20", "source": "name", "object": "geo/a-20261120.csv"}


def test_a_dated_version_placed_after_the_build_records_were_cached_is_listed_beside_its_ready_folder() -> None:
    store = Store()
    listings = Listings(cast("DatasetReader", store), 60.0)
    listing = VersionListing(listings, store.get_timeline)
    assert [build.build for build in listings.list_builds("geo")] == [2, 3, 4, 5]  # cached for a minute
    # When a dated folder's version is placed in the history, its build record written after that read
    store.events.append(Event(T0 - 30 * DAY, 6, dated=True))
    store.builds = [*store.builds, BuildRecord("geo", 6, BuildState.LIVE, dated="2026-09-01")]
    store.dated = [Dated("2026-09-01", "a", 6)]
    page = json.loads(listing.answer("geo", {}))
    # Then the page that says the folder READY lists its version too, read past the cache
    assert [(d["version"], d["status"]) for d in page["dated"]] == [(6, "READY")]
    assert [v["version"] for v in page["versions"]] == [5, 2, 4, 3, 6]
