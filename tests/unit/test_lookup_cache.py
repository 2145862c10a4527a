"""The lookup's cache: one Query per warm lookup (up to the cache's number of datasets), the live version re-read
after the TTL, never before, unknown names after a short TTL; bounded in entries and in bytes, least recently used
first out; and a batch: one Query per distinct address, answered in request order."""

from __future__ import annotations

import dataclasses
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest

from fencepost.core.addresses import V4, V6, format_address
from fencepost.core.items import Hit
from fencepost.core.keys import Directory, Probe
from fencepost.errors import DependencyUnavailable, InvalidRequest, UnknownDataset
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.caches import version_bytes
from fencepost.reading.lookup import Answer, Lookup
from fencepost.settings import CacheLimits

END = 100  # the one stored piece covers IPv4 addresses 0 to END


@dataclass
class FakeStore:
    """An in-memory store holding one IPv4 piece, ``0.0.0.0`` to ``0.0.0.100``, that counts every call the lookup
    makes (from any thread). A dataset named in ``partitions`` also has that many (empty) IPv6 partitions in its
    directory, to make its version large."""

    live: dict[str, int | None]
    calls: list[str] = field(default_factory=list)
    fail: bool = False
    partitions: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get_live(self, name: str) -> LivePointer | None:
        with self.lock:
            self.calls.append("get_live")
        version = self.live.get(name)
        return None if version is None else LivePointer(name, version)

    def get_version(self, dataset: str, version: int) -> VersionInfo | None:
        with self.lock:
            self.calls.append("get_version")
        count = self.partitions.get(dataset, 0)
        v6 = Directory(V6, tuple(range(count)), (0,) * count)
        return VersionInfo(dataset, version, ("v",), {V4: Directory.of_starts(V4, [0]), V6: v6})

    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None:
        with self.lock:
            self.calls.append("query")
        if self.fail:
            raise DependencyUnavailable("DynamoDB query failed (ThrottlingException); retry shortly")
        values = [f"{dataset}@{version}"]
        return Hit(0, END, values, format_address(V4, 0), format_address(V4, END))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_warm_lookups_cost_one_query_each() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = _lookup(store, ttl=60, clock=clock)
    lookup.find(lookup.live("geo"), V4, 5)  # cold: reads the record and the version
    store.calls.clear()
    for address in range(10):
        answer = lookup.find(lookup.live("geo"), V4, address)
        assert answer is not None
    assert store.calls == ["query"] * 10


def test_live_version_is_reread_after_the_ttl_only() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = _lookup(store, ttl=60, clock=clock)
    assert lookup.live("geo").version == 1
    store.live["geo"] = 2
    clock.now += 59.9
    assert lookup.live("geo").version == 1
    clock.now += 0.2
    assert lookup.live("geo").version == 2
    assert store.calls == ["get_live", "get_version", "get_live", "get_version"]


def test_unknown_datasets_are_cached_too() -> None:
    store, clock = FakeStore({}), Clock()
    lookup = _lookup(store, ttl=60, clock=clock)
    for _ in range(3):
        with pytest.raises(UnknownDataset):
            lookup.live("nope")
    assert store.calls == ["get_live"]


def test_invalid_names_never_reach_the_store() -> None:
    store = FakeStore({})
    with pytest.raises(InvalidRequest):
        _lookup(store, ttl=60).live("../etc/passwd")
    assert store.calls == []


def test_an_address_below_every_range_needs_no_query() -> None:
    store = FakeStore({"geo": 1})
    lookup = _lookup(store, ttl=60)
    info = lookup.live("geo")
    store.calls.clear()
    assert lookup.find(info, V6, 1) is None  # no IPv6 piece at all
    assert store.calls == []


def test_a_hit_is_answered_with_the_piece_and_its_values() -> None:
    lookup = _lookup(FakeStore({"geo": 1}), ttl=60)
    answer = lookup.find(lookup.live("geo"), V4, 5)
    assert answer is not None
    assert answer.body() == {
        "ip": "0.0.0.5",
        "dataset": "geo",
        "version": 1,
        "range": {
            "start": "0.0.0.0",
            "end": "0.0.0.100",
            "cidrs": ["0.0.0.0/26", "0.0.0.64/27", "0.0.0.96/30", "0.0.0.100/32"],
        },
        "match": {"start": "0.0.0.0", "end": "0.0.0.100", "network": "0.0.0.0/26"},
        "data": {"v": "geo@1"},
        "reserved": {"name": '"This network"', "network": "0.0.0.0/8", "rfc": "RFC 791, Section 3.2"},
    }
    assert lookup.find(lookup.live("geo"), V4, END + 1) is None  # past the piece's end


@pytest.mark.parametrize("workers", [None, 4])
def test_a_batch_costs_one_query_per_distinct_address_in_request_order(workers: int | None) -> None:
    store = FakeStore({"geo": 1})
    lookup = _lookup(store, ttl=60)
    info = lookup.live("geo")
    store.calls.clear()
    addresses = [(V4, 5), (V4, 7), (V4, 5), (V6, 1), (V4, END + 1), (V4, 7)]
    if workers is None:
        answers = lookup.answer_many([(info, *address) for address in addresses])
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            answers = lookup.answer_many([(info, *address) for address in addresses], pool)
    shown = [(answer.family, answer.address) if isinstance(answer, Answer) else None for answer in answers]
    assert shown == [(V4, 5), (V4, 7), (V4, 5), None, None, (V4, 7)]
    assert store.calls == ["query"] * 3  # 5, 7 and END + 1; no IPv6 piece, so no Query for it
    assert lookup.answer_many([]) == []


def test_a_failing_query_fails_the_batch() -> None:
    store = FakeStore({"geo": 1})
    lookup = _lookup(store, ttl=60)
    info = lookup.live("geo")
    store.fail = True
    with ThreadPoolExecutor(max_workers=2) as pool, pytest.raises(DependencyUnavailable, match="ThrottlingException"):
        lookup.answer_many([(info, V4, 1), (info, V4, 2)], pool)


# --- bounds ------------------------------------------------------------------------------------------------------


def _warm_lookup(lookup: Lookup, dataset: str) -> None:
    answer = lookup.find(lookup.live(dataset), V4, 5)
    assert answer is not None
    assert answer.body()["data"] == {"v": f"{dataset}@1"}


def test_sixty_four_datasets_in_use_cost_one_query_per_warm_lookup() -> None:
    # Given 64 datasets, each looked up once (cold: its live pointer and its version are read)
    names = [f"ds{i}" for i in range(64)]
    store, clock = FakeStore(dict.fromkeys(names, 1)), Clock()
    lookup = _lookup(store, ttl=60, clock=clock)
    for name in names:
        _warm_lookup(lookup, name)
    # When they are looked up in turn, again and again, within the TTL
    store.calls.clear()
    for _ in range(3):
        for name in names:
            _warm_lookup(lookup, name)
    # Then each lookup is one Query, and nothing else
    assert store.calls == ["query"] * 3 * 64
    # And after the TTL each dataset's pointer is read once more, its version is still cached
    clock.now += 61
    store.calls.clear()
    for name in names:
        _warm_lookup(lookup, name)
    assert store.calls == ["get_live", "query"] * 64


def test_two_thousand_unknown_names_keep_a_bounded_cache_and_never_evict_known_datasets() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = _lookup(store, ttl=60, clock=clock, limits=CacheLimits(live_entries=100))
    _warm_lookup(lookup, "geo")
    for i in range(2000):
        with pytest.raises(UnknownDataset):
            lookup.live(f"nope{i}")
    assert lookup.cache_sizes()["unknown"] == 100
    assert lookup.cache_sizes()["live"] == 1
    store.calls.clear()
    _warm_lookup(lookup, "geo")  # still warm: one Query
    assert store.calls == ["query"]


def test_known_datasets_are_bounded_too_least_recently_used_first_out() -> None:
    names = [f"ds{i}" for i in range(10)]
    store = FakeStore(dict.fromkeys(names, 1))
    lookup = _lookup(store, ttl=60, clock=Clock(), limits=CacheLimits(live_entries=4, version_entries=4))
    for name in names[:4]:
        _warm_lookup(lookup, name)
    _warm_lookup(lookup, "ds0")  # ds0 used again: ds1 is now the least recently used
    _warm_lookup(lookup, "ds4")
    sizes = {"live": 4, "unknown": 0, "versions": 4, "version_bytes": 4 * _small_bytes(), "ranges": 0, "range_bytes": 0}
    assert lookup.cache_sizes() == sizes
    store.calls.clear()
    _warm_lookup(lookup, "ds0")
    assert store.calls == ["query"]
    _warm_lookup(lookup, "ds1")
    assert store.calls == ["query", "get_live", "get_version", "query"]


def _small_bytes() -> int:
    return version_bytes(FakeStore({}).get_version("any", 1) or pytest.fail("no version"))


def test_the_byte_budget_evicts_older_versions_to_keep_a_large_one() -> None:
    # Given a byte budget for one version of 9,000 IPv6 partitions and one small version, three small ones cached
    store = FakeStore({"a": 1, "b": 1, "c": 1, "big": 1}, partitions={"big": 9_000})
    big = version_bytes(store.get_version("big", 1) or pytest.fail("no version"))
    budget = big + _small_bytes()
    lookup = _lookup(store, ttl=60, clock=Clock(), limits=CacheLimits(version_bytes=budget))
    for name in ("a", "b", "c"):
        _warm_lookup(lookup, name)
    # When the large version is read
    _warm_lookup(lookup, "big")
    # Then it is kept, the two least recently used small ones made room, and the total is within the budget
    assert lookup.cache_sizes()["versions"] == 2
    assert lookup.cache_sizes()["version_bytes"] == budget
    store.calls.clear()
    _warm_lookup(lookup, "big")
    _warm_lookup(lookup, "c")
    assert store.calls == ["query", "query"]
    _warm_lookup(lookup, "a")
    assert store.calls == ["query", "query", "get_version", "query"]


def test_a_version_larger_than_the_whole_budget_is_answered_but_not_kept() -> None:
    # Given a budget of 1 MB and a dataset whose directory alone is estimated at 1.7 MB (20,000 IPv6 partitions)
    store = FakeStore({"geo": 1, "huge": 1}, partitions={"huge": 20_000})
    lookup = _lookup(store, ttl=60, clock=Clock(), limits=CacheLimits(version_bytes=1_000_000))
    _warm_lookup(lookup, "geo")
    # When the huge one is looked up twice
    store.calls.clear()
    _warm_lookup(lookup, "huge")
    _warm_lookup(lookup, "huge")
    # Then both lookups are answered, each reading the version again; nothing else was pushed out
    assert store.calls == ["get_live", "get_version", "query", "get_version", "query"]
    assert lookup.cache_sizes()["version_bytes"] <= 1_000_000
    store.calls.clear()
    _warm_lookup(lookup, "geo")
    assert store.calls == ["query"]


def test_unknown_names_are_cached_for_the_negative_ttl_only() -> None:
    store, clock = FakeStore({}), Clock()
    lookup = _lookup(store, ttl=60, clock=clock, limits=CacheLimits(negative_ttl=5))
    with pytest.raises(UnknownDataset):
        lookup.live("geo")
    store.live["geo"] = 1  # the dataset's first version goes live
    clock.now += 4.9
    with pytest.raises(UnknownDataset):
        lookup.live("geo")
    assert store.calls == ["get_live"]
    clock.now += 0.2
    assert lookup.live("geo").version == 1  # seen within the negative TTL, not the 60 s one
    assert lookup.cache_sizes()["unknown"] == 0
    # And a negative TTL above the TTL is cut to the TTL
    short = _lookup(FakeStore({}), ttl=1, clock=clock, limits=CacheLimits(negative_ttl=30))
    with pytest.raises(UnknownDataset):
        short.live("geo")
    clock.now += 1.01
    short._store.live["geo"] = 1  # type: ignore[attr-defined]
    assert short.live("geo").version == 1


def test_a_dataset_that_is_retired_becomes_a_negative_entry() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = _lookup(store, ttl=60, clock=clock)
    _warm_lookup(lookup, "geo")
    store.live["geo"] = None
    clock.now += 61
    with pytest.raises(UnknownDataset):
        lookup.live("geo")
    assert (lookup.cache_sizes()["live"], lookup.cache_sizes()["unknown"]) == (0, 1)


def test_the_caches_stay_within_bounds_under_concurrent_lookups() -> None:
    names = [f"ds{i}" for i in range(200)]
    store, clock = FakeStore(dict.fromkeys(names[:100], 1)), Clock()
    lookup = _lookup(store, ttl=60, clock=clock, limits=CacheLimits(live_entries=16, version_entries=8))

    def one(index: int) -> bool:
        name = names[(index * 7) % len(names)]
        try:
            lookup.find(lookup.live(name), V4, 5)
        except UnknownDataset:
            return False
        return True

    with ThreadPoolExecutor(max_workers=8) as pool:
        found = list(pool.map(one, range(4000)))
    assert sum(found) == 2000
    sizes = lookup.cache_sizes()
    assert (sizes["live"], sizes["unknown"], sizes["versions"]) == (16, 16, 8)


def _lookup(store: Any, ttl: float, clock: Any = None, *, limits: CacheLimits | None = None) -> Lookup:
    """A lookup whose every answer is a Query (the range cache off: ``tests/unit/test_range_cache.py`` tests it), so
    that these tests count what the live-pointer and version caches save."""
    limits = dataclasses.replace(limits or CacheLimits(), range_bytes=0)
    return Lookup(store, ttl, clock, limits=limits) if clock is not None else Lookup(store, ttl, limits=limits)
