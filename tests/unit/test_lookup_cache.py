"""The lookup's cache: one Query per warm lookup, the live version re-read after the TTL, never before."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from fencepost.core.addresses import V4, V6
from fencepost.core.items import Hit
from fencepost.core.keys import Directory, Probe
from fencepost.errors import InvalidRequest, UnknownDataset
from fencepost.lookup import Lookup
from fencepost.model import READY, DatasetRecord, VersionInfo


@dataclass
class FakeStore:
    """An in-memory store that counts every call the lookup makes."""

    live: dict[str, int | None]
    calls: list[str] = field(default_factory=list)

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        self.calls.append("get_dataset")
        version = self.live.get(name)
        return None if version is None else DatasetRecord(name=name, live=version, status=READY)

    def get_version(self, dataset: str, version: int) -> VersionInfo | None:
        self.calls.append("get_version")
        directory = Directory.of_starts(V4, [0])
        return VersionInfo(dataset, version, ("v",), {V4: directory, V6: Directory(V6)})

    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None:
        self.calls.append("query")
        return Hit(0, 100, 0, 100, [f"{dataset}@{version}"])


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_warm_lookups_cost_one_query_each() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = Lookup(store, ttl=60, clock=clock)
    lookup.find(lookup.live("geo"), V4, 5)  # cold: reads the record and the version
    store.calls.clear()
    for address in range(10):
        answer = lookup.find(lookup.live("geo"), V4, address)
        assert answer is not None
    assert store.calls == ["query"] * 10


def test_live_version_is_reread_after_the_ttl_only() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = Lookup(store, ttl=60, clock=clock)
    assert lookup.live("geo").version == 1
    store.live["geo"] = 2
    clock.now += 59.9
    assert lookup.live("geo").version == 1
    clock.now += 0.2
    assert lookup.live("geo").version == 2
    assert store.calls == ["get_dataset", "get_version", "get_dataset", "get_version"]


def test_unknown_datasets_are_cached_too() -> None:
    store, clock = FakeStore({}), Clock()
    lookup = Lookup(store, ttl=60, clock=clock)
    for _ in range(3):
        with pytest.raises(UnknownDataset):
            lookup.live("nope")
    assert store.calls == ["get_dataset"]


def test_invalid_names_never_reach_the_store() -> None:
    store = FakeStore({})
    with pytest.raises(InvalidRequest):
        Lookup(store, ttl=60).live("../etc/passwd")
    assert store.calls == []


def test_an_address_below_every_range_needs_no_query() -> None:
    store = FakeStore({"geo": 1})
    lookup = Lookup(store, ttl=60)
    info = lookup.live("geo")
    store.calls.clear()
    assert lookup.find(info, V6, 1) is None  # no IPv6 piece at all
    assert store.calls == []
