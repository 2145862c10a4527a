"""The lookup's cache: one Query per warm lookup (up to the cache's number of datasets), the live version re-read
after the TTL, never before, unknown names after a short TTL; bounded in entries and in bytes, least recently used
first out; and a batch: one Query per distinct address, answered in request order."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from fencepost.core.space.addresses import V4, V6
from fencepost.errors import DependencyUnavailable, InvalidRequest, UnknownDataset
from fencepost.reading.answers import Answer
from tests.support.lookup_cache import END, Clock, FakeStore, counting_lookup


def test_warm_lookups_cost_one_query_each() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = counting_lookup(store, ttl=60, clock=clock)
    lookup.find(lookup.live("geo"), V4, 5)  # cold: reads the record and the version
    store.calls.clear()
    for address in range(10):
        answer = lookup.find(lookup.live("geo"), V4, address)
        assert answer is not None
    assert store.calls == ["query"] * 10


def test_live_version_is_reread_after_the_ttl_only() -> None:
    store, clock = FakeStore({"geo": 1}), Clock()
    lookup = counting_lookup(store, ttl=60, clock=clock)
    assert lookup.live("geo").version == 1
    store.live["geo"] = 2
    clock.now += 59.9
    assert lookup.live("geo").version == 1
    clock.now += 0.2
    assert lookup.live("geo").version == 2
    assert store.calls == ["get_live", "get_version", "get_live", "get_version"]


def test_unknown_datasets_are_cached_too() -> None:
    store, clock = FakeStore({}), Clock()
    lookup = counting_lookup(store, ttl=60, clock=clock)
    for _ in range(3):
        with pytest.raises(UnknownDataset):
            lookup.live("nope")
    assert store.calls == ["get_live"]


def test_invalid_names_never_reach_the_store() -> None:
    store = FakeStore({})
    with pytest.raises(InvalidRequest):
        counting_lookup(store, ttl=60).live("../etc/passwd")
    assert store.calls == []


def test_an_address_below_every_range_needs_no_query() -> None:
    store = FakeStore({"geo": 1})
    lookup = counting_lookup(store, ttl=60)
    info = lookup.live("geo")
    store.calls.clear()
    assert lookup.find(info, V6, 1) is None  # no IPv6 piece at all
    assert store.calls == []


def test_a_hit_is_answered_with_the_piece_and_its_values() -> None:
    lookup = counting_lookup(FakeStore({"geo": 1}), ttl=60)
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
    lookup = counting_lookup(store, ttl=60)
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
    lookup = counting_lookup(store, ttl=60)
    info = lookup.live("geo")
    store.fail = True
    with ThreadPoolExecutor(max_workers=2) as pool, pytest.raises(DependencyUnavailable, match="ThrottlingException"):
        lookup.answer_many([(info, V4, 1), (info, V4, 2)], pool)
