"""The lookup's caches stay within their bounds (``fencepost.reading.lookup`` on an in-memory store): datasets in use,
unknown names, the byte budget, the negative TTL, retired datasets and concurrent lookups."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from fencepost.core.space.addresses import V4
from fencepost.errors import UnknownDataset
from fencepost.reading.caches import version_bytes
from fencepost.settings import CacheLimits
from tests.support.lookup_cache import Clock, FakeStore, counting_lookup, warm_lookup


def test_sixty_four_datasets_in_use_cost_one_query_per_warm_lookup() -> None:
    # Given 64 datasets, each looked up once (cold: its live pointer and its version are read)
    names = [f"ds{i}" for i in range(64)]
    store, clock = FakeStore(dict.fromkeys(names, 1)), Clock()
    lookup = counting_lookup(store, ttl=60, clock=clock)
    for name in names:
        warm_lookup(lookup, name)
    # When they are looked up in turn, again and again, within the TTL
    store.calls.clear()
    for _ in range(3):
        for name in names:
            warm_lookup(lookup, name)
    # Then each lookup is one Query, and nothing else
    assert store.calls == ["query"] * 3 * 64
    # And after the TTL each dataset's pointer is read once more, its version is still cached
    clock.now += 61
    store.calls.clear()
    for name in names:
        warm_lookup(lookup, name)
    assert store.calls == ["get_live", "query"] * 64


def test_two_thousand_unknown_names_keep_a_bounded_cache_and_never_evict_known_datasets() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = counting_lookup(store, ttl=60, clock=clock, limits=CacheLimits(live_entries=100))
    warm_lookup(lookup, "geo")
    for i in range(2000):
        with pytest.raises(UnknownDataset):
            lookup.live(f"nope{i}")
    assert lookup.cache_sizes()["unknown"] == 100
    assert lookup.cache_sizes()["live"] == 1
    store.calls.clear()
    warm_lookup(lookup, "geo")  # still warm: one Query
    assert store.calls == ["query"]


def test_known_datasets_are_bounded_too_least_recently_used_first_out() -> None:
    names = [f"ds{i}" for i in range(10)]
    store = FakeStore(dict.fromkeys(names, 1))
    lookup = counting_lookup(store, ttl=60, clock=Clock(), limits=CacheLimits(live_entries=4, version_entries=4))
    for name in names[:4]:
        warm_lookup(lookup, name)
    warm_lookup(lookup, "ds0")  # ds0 used again: ds1 is now the least recently used
    warm_lookup(lookup, "ds4")
    sizes = {"live": 4, "unknown": 0, "versions": 4, "version_bytes": 4 * _small_bytes(), "ranges": 0, "range_bytes": 0}
    assert lookup.cache_sizes() == sizes
    store.calls.clear()
    warm_lookup(lookup, "ds0")
    assert store.calls == ["query"]
    warm_lookup(lookup, "ds1")
    assert store.calls == ["query", "get_live", "get_version", "query"]


def _small_bytes() -> int:
    return version_bytes(FakeStore({}).get_version("any", 1) or pytest.fail("no version"))


def test_the_byte_budget_evicts_older_versions_to_keep_a_large_one() -> None:
    # Given a byte budget for one version of 9,000 IPv6 partitions and one small version, three small ones cached
    store = FakeStore({"a": 1, "b": 1, "c": 1, "big": 1}, partitions={"big": 9_000})
    big = version_bytes(store.get_version("big", 1) or pytest.fail("no version"))
    budget = big + _small_bytes()
    lookup = counting_lookup(store, ttl=60, clock=Clock(), limits=CacheLimits(version_bytes=budget))
    for name in ("a", "b", "c"):
        warm_lookup(lookup, name)
    # When the large version is read
    warm_lookup(lookup, "big")
    # Then it is kept, the two least recently used small ones made room, and the total is within the budget
    assert lookup.cache_sizes()["versions"] == 2
    assert lookup.cache_sizes()["version_bytes"] == budget
    store.calls.clear()
    warm_lookup(lookup, "big")
    warm_lookup(lookup, "c")
    assert store.calls == ["query", "query"]
    warm_lookup(lookup, "a")
    assert store.calls == ["query", "query", "get_version", "query"]


def test_a_version_larger_than_the_whole_budget_is_answered_but_not_kept() -> None:
    # Given a budget of 1 MB and a dataset whose directory alone is estimated at 1.7 MB (20,000 IPv6 partitions)
    store = FakeStore({"geo": 1, "huge": 1}, partitions={"huge": 20_000})
    lookup = counting_lookup(store, ttl=60, clock=Clock(), limits=CacheLimits(version_bytes=1_000_000))
    warm_lookup(lookup, "geo")
    # When the huge one is looked up twice
    store.calls.clear()
    warm_lookup(lookup, "huge")
    warm_lookup(lookup, "huge")
    # Then both lookups are answered, each reading the version again; nothing else was pushed out
    assert store.calls == ["get_live", "get_version", "query", "get_version", "query"]
    assert lookup.cache_sizes()["version_bytes"] <= 1_000_000
    store.calls.clear()
    warm_lookup(lookup, "geo")
    assert store.calls == ["query"]


def test_unknown_names_are_cached_for_the_negative_ttl_only() -> None:
    store, clock = FakeStore({}), Clock()
    lookup = counting_lookup(store, ttl=60, clock=clock, limits=CacheLimits(negative_ttl=5))
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
    short = counting_lookup(FakeStore({}), ttl=1, clock=clock, limits=CacheLimits(negative_ttl=30))
    with pytest.raises(UnknownDataset):
        short.live("geo")
    clock.now += 1.01
    short._store.live["geo"] = 1  # type: ignore[attr-defined]
    assert short.live("geo").version == 1


def test_a_dataset_that_is_retired_becomes_a_negative_entry() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = counting_lookup(store, ttl=60, clock=clock)
    warm_lookup(lookup, "geo")
    store.live["geo"] = None
    clock.now += 61
    with pytest.raises(UnknownDataset):
        lookup.live("geo")
    assert (lookup.cache_sizes()["live"], lookup.cache_sizes()["unknown"]) == (0, 1)


def test_the_caches_stay_within_bounds_under_concurrent_lookups() -> None:
    names = [f"ds{i}" for i in range(200)]
    store, clock = FakeStore(dict.fromkeys(names[:100], 1)), Clock()
    lookup = counting_lookup(store, ttl=60, clock=clock, limits=CacheLimits(live_entries=16, version_entries=8))

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
