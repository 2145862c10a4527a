"""What a lookup rate does to the table: the Queries reaching each partition key, the first to throttle and at what
rate, with and without split for heat, and where this key layout tops out.

Lookups are drawn from the skew (``zipf``: pieces ranked at random, the k-th asked 1/k as often; ``uniform``:
addresses uniform over IPv4; or a file of addresses), answered as a lookup answers them: a range-cache hit costs
no Query (the cache simulated here: least recently used, the default size at the upper estimate of an entry, one
warm container); a miss is one eventually consistent Query of one item (0.5 read units) on the partition key the
version's directory names. Partition key values land on the table's partitions by the modelled hash.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections import Counter, OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from capacity import facts
from capacity.facts import EVENTUAL_READ_COST
from capacity.modes import parse_mode
from capacity.partitions import Keyspace
from capacity.placement import position
from fencepost.core.space.addresses import V4, parse_address
from fencepost.core.storage.keys import range_pk
from fencepost.reading.range_cache import entry_bytes
from fencepost.settings import CacheLimits
from planner.local_build import Build

SAMPLE: Final = 200_000  # lookups drawn to measure the shares and the cache's hit ratio
ENTRY: Final = entry_bytes("XX")  # a cached stretch, at the range cache's own upper estimate


@dataclass(frozen=True, slots=True)
class KeyReads:
    key: str
    share: float  # of the Queries
    queries_per_second: float
    partition: int
    partition_read_units: float  # per second, every key of its partition together


@dataclass(frozen=True, slots=True)
class ReadPlan:
    lookups_per_second: float
    skew: str
    hit_ratio: float
    queries_per_second: float
    keys: tuple[KeyReads, ...]  # the busiest first
    first_throttle_key: str
    first_throttle_lookups_per_second: float  # the lookup rate at which it starts refusing, before any split
    max_lookups_per_second: float  # before any split
    with_splits_lookups_per_second: float  # once split for heat has spread the hot keys: the table's quota
    minutes_to_split: float  # sustained heat before the first split


def addresses(build: Build, skew: str, count: int, rng: random.Random) -> Iterator[tuple[int, int]]:
    """``(family, address)`` of ``count`` lookups."""
    if skew == "uniform":
        for _ in range(count):
            yield V4, rng.getrandbits(32)
        return
    if skew == "zipf":
        pieces = [(family, start, end) for family, p in build.pieces.items() for start, end, _ in p]
        rng.shuffle(pieces)
        weights = [1 / rank for rank in range(1, len(pieces) + 1)]
        cumulative, total = [], 0.0
        for weight in weights:
            total += weight
            cumulative.append(total)
        for _ in range(count):
            family, start, end = pieces[bisect_right(cumulative, rng.random() * total)]
            yield family, rng.randint(start, end)
        return
    lines = Path(skew).read_text().split()
    for index in range(count):
        yield parse_address(lines[index % len(lines)])


def plan_reads(build: Build, lookups_per_second: float, skew: str, mode_name: str = "on-demand-new") -> ReadPlan:
    rng = random.Random(5)
    cache: OrderedDict[tuple[int, int], None] = OrderedDict()
    room = CacheLimits().range_bytes // ENTRY
    queries: Counter[tuple[str, int]] = Counter()
    misses = 0
    for number, (family, address) in enumerate(addresses(build, skew, SAMPLE, rng)):
        probe = build.directories[family].probe(address)
        if probe is None:
            continue
        pieces = build.pieces[family]
        piece = bisect_right(pieces.starts, address) - 1
        stretch = (family, piece)  # a piece or the gap after it: one cached stretch either way
        if stretch in cache:
            cache.move_to_end(stretch)
            continue
        cache[stretch] = None
        if len(cache) > room:
            cache.popitem(last=False)
        if number >= SAMPLE // 10:  # the first tenth warms the cache
            misses += 1
            queries[(range_pk(build.dataset, build.version, family, probe.partition), probe.bound)] += 1
    counted = SAMPLE - SAMPLE // 10
    hit_ratio = 1 - misses / counted
    return _spread(queries, misses, hit_ratio, lookups_per_second, skew=skew, mode_name=mode_name)


def _spread(
    queries: Counter[tuple[str, int]], misses: int, hit_ratio: float, rate: float, *, skew: str, mode_name: str
) -> ReadPlan:
    space = Keyspace(parse_mode(mode_name).partitions)
    per_key: Counter[str] = Counter()
    per_partition: Counter[int] = Counter()
    partition_of: dict[str, int] = {}
    for (key, bound), count in queries.items():
        partition = space.index_of(space.find(position({"S": key}, {"N": str(bound)})))
        per_key[key] += count
        per_partition[partition] += count
        partition_of[key] = partition
    query_rate = rate * (1 - hit_ratio)
    misses = max(misses, 1)
    units = {p: count / misses * query_rate * EVENTUAL_READ_COST for p, count in per_partition.items()}
    keys = tuple(
        KeyReads(key, count / misses, count / misses * query_rate, partition_of[key], units[partition_of[key]])
        for key, count in per_key.most_common()
    )
    hottest = max(per_partition, key=lambda p: per_partition[p]) if per_partition else 0
    hottest_share = per_partition[hottest] / misses if per_partition else 0.0
    per_lookup = (1 - hit_ratio) * EVENTUAL_READ_COST  # read units per lookup reaching the table
    ceiling = facts.PARTITION_EVENTUAL_READ_UNITS
    first = ceiling / (per_lookup * hottest_share) if hottest_share and per_lookup else math.inf
    first_key = next((k.key for k in keys if k.partition == hottest), "")
    quota = facts.TABLE_MAX_UNITS / per_lookup if per_lookup else math.inf
    return ReadPlan(
        rate, skew, hit_ratio, query_rate, keys, first_key, first, first, quota, facts.HEAT_SPLIT_SECONDS / 60
    )
