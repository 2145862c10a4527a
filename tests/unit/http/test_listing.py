"""Listings are cached briefly per container, bounded in names: listing traffic reads the ``#datasets`` partition at
most once per name (and once in whole) per container and TTL."""

from __future__ import annotations

from fencepost.http.dataset_routes import Listings
from fencepost.model import DatasetRecord


class Store:
    def __init__(self) -> None:
        self.records = {"geo": DatasetRecord(name="geo", live=1)}
        self.reads: list[str] = []

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        assert consistent  # listings are read strongly consistent: the cache, not the read, makes them stale
        self.reads.append(name)
        return self.records.get(name)

    def list_datasets(self) -> list[DatasetRecord]:
        self.reads.append("*")
        return list(self.records.values())


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
        assert [record.name for record in listings.all()] == ["geo"]
    # Then each was read once
    assert sorted(store.reads) == ["*", "geo", "nope"]
    # And after the TTL, once more: a change is seen within the TTL
    store.records["geo"] = DatasetRecord(name="geo", live=2)
    clock.now += 5.0
    assert listings.get("geo") == DatasetRecord(name="geo", live=2)
    assert [record.live for record in listings.all()] == [2]
    assert sorted(store.reads) == ["*", "*", "geo", "geo", "nope"]


def test_the_cache_is_bounded_in_names() -> None:
    store, clock = Store(), Clock()
    listings = Listings(store, 5.0, max_names=16, clock=clock)
    for index in range(1000):
        listings.get(f"unknown{index}")
    assert len(listings._records._entries) == 16
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
