"""The range cache (``fencepost.reading.range_cache``) and the lookup's use of it: an address inside a stretch already
answered costs no Query, in this version only; the cache stays within its byte budget, least recently used first
out, and stays consistent under threads."""

from __future__ import annotations

import random
import threading

import pytest

from fencepost.core.space.addresses import V4, V6, parse_address
from fencepost.declared import SettingsError
from fencepost.reading.answers import Answer, Miss
from fencepost.reading.lookup import Lookup
from fencepost.reading.range_cache import ENTRY_BYTES, RangeCache, entry_bytes
from fencepost.settings import CacheLimits, LookupSettings
from tests.fakes.ranges import MemoryStore
from tests.support import family_ranges

KEY = ("geo", 1, V4)
ROWS = [
    ("1.0.0.0", "1.0.0.255", "AU"),
    ("1.0.0.16", "1.0.0.31", "CN"),  # nested: splits the /24 into three pieces
    ("1.0.2.0", "1.0.2.255", "JP"),  # a gap 1.0.1.0-1.0.1.255 before it
    ("2001:db8::", "2001:db8::ffff", "ZZ"),
]


def _address(text: str) -> int:
    return parse_address(text)[1]


def _lookup(store: MemoryStore, range_bytes: int = 1 << 20) -> Lookup:
    return Lookup(store, 60.0, limits=CacheLimits(range_bytes=range_bytes))


def _store(rows: list[tuple[str, str, str]] = ROWS, version: int = 1) -> MemoryStore:
    store = MemoryStore()
    store.publish("geo", version, family_ranges(rows), ["country"])
    return store


def test_an_address_inside_an_answered_piece_costs_no_query() -> None:
    store = _store()
    lookup = _lookup(store)
    info = lookup.live("geo")
    first = lookup.answer(info, V4, _address("1.0.0.40"))
    assert isinstance(first, Answer)
    assert store.queries == 1
    again = lookup.answer(info, V4, _address("1.0.0.255"))  # the same piece 1.0.0.32-1.0.0.255
    assert isinstance(again, Answer)
    assert store.queries == 1
    assert (again.hit, again.address) == (first.hit, _address("1.0.0.255"))
    assert again.body()["ip"] == "1.0.0.255"
    lookup.answer(info, V4, _address("1.0.0.31"))  # the nested piece: another stretch
    assert store.queries == 2


def test_an_address_inside_an_answered_gap_costs_no_query_and_gets_the_same_gap() -> None:
    store = _store()
    lookup = _lookup(store)
    info = lookup.live("geo")
    first = lookup.answer(info, V4, _address("1.0.1.7"))
    assert isinstance(first, Miss)
    assert first.gap == (_address("1.0.1.0"), _address("1.0.1.255"))
    second = lookup.answer(info, V4, _address("1.0.1.200"))
    assert isinstance(second, Miss)
    assert (second.gap, second.address, store.queries) == (first.gap, _address("1.0.1.200"), 1)


def test_a_new_version_starts_cold_and_never_answers_from_the_old_one() -> None:
    store = _store()
    lookup = Lookup(store, 0.0, limits=CacheLimits(range_bytes=1 << 20))  # the live pointer read every time
    lookup.answer(lookup.live("geo"), V4, _address("1.0.2.9"))
    store.publish("geo", 2, family_ranges([("1.0.2.0", "1.0.2.255", "NZ")]), ["country"])
    answer = lookup.answer(lookup.live("geo"), V4, _address("1.0.2.9"))
    assert isinstance(answer, Answer)
    assert (answer.info.version, answer.hit.values, store.queries) == (2, ["NZ"], 2)


def test_versions_without_gaps_cache_pieces_only() -> None:
    store = MemoryStore()
    store.publish("geo", 1, family_ranges(ROWS), ["country"], gaps=False)
    lookup = _lookup(store)
    info = lookup.live("geo")
    for _ in range(2):
        assert lookup.answer(info, V4, _address("1.0.1.7")) == Miss(V4, _address("1.0.1.7"), info, None)
    assert store.queries == 2


def test_range_cache_bytes_zero_turns_it_off() -> None:
    store = _store()
    lookup = _lookup(store, range_bytes=0)
    info = lookup.live("geo")
    for _ in range(3):
        lookup.answer(info, V6, _address("2001:db8::1"))
    assert (store.queries, len(lookup.ranges)) == (3, 0)


def test_the_budget_evicts_the_least_recently_used_stretch() -> None:
    cache: RangeCache[str] = RangeCache(3 * 100)
    for start in (0, 10, 20):
        cache.put(KEY, start, start + 5, f"s{start}", 100)
    assert cache.get(KEY, 3) == "s0"  # 0..5 is now the most recently used
    cache.put(KEY, 30, 35, "s30", 100)  # evicts 10..15
    assert (cache.get(KEY, 12), cache.get(KEY, 2), cache.get(KEY, 22), cache.get(KEY, 31)) == (None, "s0", "s20", "s30")
    assert (len(cache), cache.bytes) == (3, 300)
    cache.put(KEY, 40, 45, "too big", 301)  # larger than the whole budget: not kept, nothing evicted
    assert (cache.get(KEY, 41), len(cache)) == (None, 3)


def test_stretches_are_found_only_inside_their_bounds_and_never_overlap() -> None:
    cache: RangeCache[str] = RangeCache(10_000)
    cache.put(KEY, 10, 19, "a", 10)
    cache.put(KEY, 15, 30, "overlapping", 10)  # two threads answered: the first one stays
    cache.put(KEY, 5, 10, "overlapping", 10)
    cache.put(("geo", 2, V4), 10, 19, "other version", 10)
    assert [cache.get(KEY, a) for a in (9, 10, 19, 20, 25)] == [None, "a", "a", None, None]
    assert cache.get(("geo", 2, V4), 12) == "other version"
    assert cache.get(("geo", 1, V6), 12) is None


def test_entry_bytes_counts_the_metadata() -> None:
    assert entry_bytes() == ENTRY_BYTES
    assert entry_bytes("AU", "Ünïcode") > entry_bytes("AU") > ENTRY_BYTES


def test_threads_keep_the_cache_consistent_and_within_budget() -> None:
    cache: RangeCache[int] = RangeCache(50 * 64)
    errors: list[str] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(3000):
            start = rng.randrange(0, 200) * 10
            if rng.random() < 0.5:
                cache.put(KEY, start, start + 9, start, 64)
            else:
                found = cache.get(KEY, start + rng.randrange(10))
                if found is not None and found != start:
                    errors.append(f"{start}: {found}")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert cache.bytes == 64 * len(cache) <= 50 * 64


def test_the_setting_has_a_safe_default_and_bounds() -> None:
    base = {"TABLE_NAME": "t"}
    assert LookupSettings.from_env(base).caches.range_bytes == 128 * 1024 * 1024
    assert LookupSettings.from_env({**base, "RANGE_CACHE_BYTES": "0"}).caches.range_bytes == 0
    for bad in ("-1", "lots", str(9 * 1024**3)):
        with pytest.raises(SettingsError, match="RANGE_CACHE_BYTES"):
            LookupSettings.from_env({**base, "RANGE_CACHE_BYTES": bad})
