"""Listings are cached briefly per container, bounded in names: listing traffic reads the ``#datasets`` partition at
most once per name (and once in whole) per container and TTL, and a dataset's build records and dated folders (what
``GET /datasets/{name}/versions`` and exports of past versions read) at most once per name and TTL too."""

from __future__ import annotations

import json

from fencepost.core.folders.backfill import Dated
from fencepost.core.sources.schedule import Outcome, SourceState
from fencepost.core.sources.spec import parse_source
from fencepost.http.dataset_routes import Listings
from fencepost.model import BuildRecord, BuildState, DatasetRecord


class Store:
    def __init__(self) -> None:
        self.records = {"geo": DatasetRecord(name="geo", live=1), "drop": DatasetRecord(name="drop", live=1)}
        self.sources: dict[str, SourceState] = {}
        self.reads: list[str] = []

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        assert consistent  # listings are read strongly consistent: the cache, not the read, makes them stale
        self.reads.append(name)
        return self.records.get(name)

    def list_datasets(self) -> list[DatasetRecord]:
        self.reads.append("*")
        return list(self.records.values())

    def list_source_states(self) -> dict[str, SourceState]:
        self.reads.append("sources")
        return self.sources

    def list_builds(self, dataset: str) -> list[BuildRecord]:
        self.reads.append(f"builds {dataset}")
        return [BuildRecord(dataset, 1, BuildState.LIVE)] if dataset in self.records else []

    def list_dated(self, dataset: str) -> list[Dated]:
        self.reads.append(f"dated {dataset}")
        return []


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_listing_is_read_once_per_ttl() -> None:
    store, clock = Store(), Clock()
    listings = Listings(store, 5.0, clock=clock)
    # Given many requests within the TTL, for a known name, an unknown one and the whole list
    for _ in range(100):
        assert listings.get("geo") == DatasetRecord(name="geo", live=1)
        assert listings.get("nope") is None
        assert [record.name for record in listings.all()] == ["geo", "drop"]
    # Then each was read once
    assert sorted(store.reads) == ["*", "geo", "nope"]
    # And after the TTL, once more: a change is seen within the TTL
    store.records["geo"] = DatasetRecord(name="geo", live=2)
    clock.now += 5.0
    assert listings.get("geo") == DatasetRecord(name="geo", live=2)
    assert [record.live for record in listings.all()] == [2, 1]
    assert sorted(store.reads) == ["*", "*", "geo", "geo", "nope"]


def test_a_flood_of_version_listings_and_past_exports_reads_the_build_records_once_per_ttl() -> None:
    store, clock = Store(), Clock()
    listings = Listings(store, 5.0, clock=clock)
    for _ in range(1000):
        assert [build.build for build in listings.list_builds("geo")] == [1]
        assert listings.list_dated("geo") == []
        assert listings.get_dataset("geo", consistent=True) == DatasetRecord(name="geo", live=1)
    assert sorted(store.reads) == ["builds geo", "dated geo", "geo"]
    clock.now += 5.0
    listings.list_builds("geo")
    assert store.reads.count("builds geo") == 2


def test_the_cache_is_bounded_in_names() -> None:
    store, clock = Store(), Clock()
    listings = Listings(store, 5.0, max_names=16, clock=clock)
    for index in range(1000):
        listings.get(f"unknown{index}")
    assert len(listings._named) == 3 * 16
    listings.get("unknown999")
    assert store.reads.count("unknown999") == 1  # the most recent are kept


def test_a_ttl_of_zero_reads_every_time() -> None:
    store = Store()
    listings = Listings(store, 0.0, clock=Clock())
    listings.get("geo")
    listings.get("geo")
    listings.all()
    listings.all()
    assert store.reads == ["geo", "geo", "*", "*"]


def test_a_dataset_shows_its_source_and_none_without_one() -> None:
    store = Store()
    source = parse_source(
        b'{"url": "https://e.org/drop.txt?list=level1", "every": "1h"}', "s", least_every=60, https_only=True
    )
    store.sources["drop"] = SourceState().checked(source, Outcome.UNCHANGED, 1_700_000_000_000, least_every=60)
    listings = Listings(store, 5.0, clock=Clock())
    one = json.loads(listings.answer_one("drop").body)
    assert one["source"]["url"] == "https://e.org/drop.txt?..."
    assert (one["source"]["outcome"], one["source"]["next_check"]) == ("UNCHANGED", "2023-11-14T23:13:20Z")
    assert json.loads(listings.answer_one("geo").body)["source"] is None
    every = json.loads(listings.answer_all().body)["datasets"]
    shown = [(d["name"], d["source"] and d["source"]["outcome"]) for d in every]
    assert shown == [("drop", "UNCHANGED"), ("geo", None)]  # in name order
    assert store.reads.count("sources") == 1  # one read of every source, cached as the listing is


def test_a_folder_whose_source_never_wrote_a_release_is_shown_with_why() -> None:
    store = Store()
    document = b'{"url": "https://e.org/new.txt", "every": "1h"}'
    source = parse_source(document, "s", least_every=60, https_only=True)
    state = SourceState().checked(source, Outcome.FAILED, 1_700_000_000_000, least_every=60, reason="answered 404")
    store.sources["new"] = state
    shown = json.loads(Listings(store, 5.0, clock=Clock()).answer_one("new").body)
    assert (shown["name"], shown["status"], shown["version"]) == ("new", "FAILED", None)
    assert shown["source"]["reason"] == "answered 404"
    store.sources["new"] = SourceState().checked(source, Outcome.CHANGED, 1_700_000_000_000, least_every=60)
    assert json.loads(Listings(store, 5.0, clock=Clock()).answer_one("new").body)["status"] == "LOADING"
    listed = json.loads(Listings(store, 5.0, clock=Clock()).answer_all().body)["datasets"]
    assert [(d["name"], d["version"]) for d in listed] == [("drop", 1), ("geo", 1), ("new", None)]
