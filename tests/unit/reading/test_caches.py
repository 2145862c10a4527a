"""The caches' building blocks: a least-recently-used cache bounded by entries and bytes, and the size estimate of
a version, checked against what reading one really allocates."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from fencepost.core.space.addresses import V4, V6
from fencepost.core.storage.keys import Directory
from fencepost.model import VersionInfo
from fencepost.reading.caches import LruCache, version_bytes


def test_an_lru_cache_counts_bytes_and_refuses_what_alone_is_over_budget() -> None:
    cache: LruCache[str, str] = LruCache(max_entries=3, max_bytes=100)
    assert cache.put("a", "A", 40)
    assert cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # a is now the most recently used
    assert cache.put("c", "C", 40)  # over 100 bytes: b goes
    assert ("a" in cache, "b" in cache, "c" in cache) == (True, False, True)
    assert cache.bytes == 80
    assert not cache.put("d", "D", 101)
    assert cache.put("a", "A2", 10)  # replacing an entry replaces its size
    assert (cache.bytes, cache.get("a")) == (50, "A2")
    cache.pop("a")
    assert (len(cache), cache.bytes) == (1, 40)


@pytest.mark.parametrize("family", [V4, V6])
def test_a_versions_size_estimate_is_an_upper_bound_of_what_it_takes(family: int) -> None:
    # Given a directory of 20,000 partitions with offsets of every size, as a lookup reads it: from its pages
    rng = random.Random(family)
    count = 200 if family == V4 else 20_000
    bits = 24 if family == V4 else 108
    source = Directory(family, tuple(range(count)), tuple(rng.getrandbits(bits) for _ in range(count)))
    pages = source.pages(300_000)
    # When it is read while tracemalloc counts the allocations
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        info = VersionInfo("geo", 1, ("country", "asn"), {family: Directory.from_pages(family, pages)})
        taken = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # Then the estimate is at least what it took, and not far above
    assert taken <= version_bytes(info) <= 1.5 * taken + 2048
