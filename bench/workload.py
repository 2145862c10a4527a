"""The range cache under a workload: hit ratios over a million lookups, and what a hit and a miss cost.

Two popularity models over the shared IPv4 file's ranges:

- uniform: an address drawn uniformly between the file's first and last address (gaps included);
- Zipf(1.0): a range drawn with probability proportional to 1/rank (ranks shuffled over the ranges), then an
  address drawn uniformly inside it.

Hit ratios and Queries per lookup come from the whole run of ``--workload-lookups`` lookups, through the lookup's
own ``answer``, against a counting in-memory store holding the whole file (``tests.fakes.ranges.MemoryStore``), one
fresh container per cache size. Latencies come from samples on DynamoDB Local through the real app. On AWS every
container keeps its own cache: a function with N warm containers sees each container's share of the traffic, so
these ratios hold per container, for the traffic one container receives.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.report import mark
from bench.timing import percentile
from fencepost.aws.dynamo import Tables
from fencepost.core.space.addresses import V4, format_address, parse_address
from fencepost.declared import MIB
from fencepost.http.app import create_app
from fencepost.observability import LOOKUP_SERVICE, Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import CacheLimits, LookupSettings, TableSettings
from tests.fakes.ranges import MemoryStore
from tests.support import EVENTS, LambdaContext, family_ranges

SIZES = (8 * MIB, 32 * MIB, 128 * MIB)  # the last is the default (RANGE_CACHE_BYTES)
MODELS = ("uniform", "zipf")


@dataclass(frozen=True)
class HitRatio:
    model: str
    cache_bytes: int
    lookups: int
    queries: int
    entries: int
    seconds: float

    @property
    def hit_ratio(self) -> float:
        return 1 - self.queries / self.lookups


def _bounds(rows: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    starts = np.array([parse_address(row[0])[1] for row in rows], dtype=np.int64)
    ends = np.array([parse_address(row[1])[1] for row in rows], dtype=np.int64)
    return starts, ends


def addresses(rows: list[list[str]], model: str, count: int, seed: int = 17) -> list[int]:
    """``count`` IPv4 addresses drawn by ``model`` over the rows' ranges."""
    rng = np.random.default_rng(seed)
    starts, ends = _bounds(rows)
    if model == "uniform":
        return [int(a) for a in rng.integers(int(starts.min()), int(ends.max()) + 1, size=count)]
    weights = 1.0 / np.arange(1, len(rows) + 1)
    cdf = np.cumsum(weights) / weights.sum()
    ranks = np.minimum(np.searchsorted(cdf, rng.random(count)), len(rows) - 1)
    chosen = rng.permutation(len(rows))[ranks]  # rank -> range, shuffled
    spans = ends[chosen] - starts[chosen] + 1
    return [int(a) for a in starts[chosen] + (rng.random(count) * spans).astype(np.int64)]


def hit_ratios(rows: list[list[str]], lookups: int, sizes: tuple[int, ...] = SIZES) -> list[HitRatio]:
    store = MemoryStore()
    store.publish("bench", 1, family_ranges(rows), ["asn", "country", "description"])
    results = []
    for model in MODELS:
        drawn = addresses(rows, model, lookups)
        for size in sizes:
            lookup = Lookup(store, 3600.0, limits=CacheLimits(range_bytes=size))
            info = lookup.live("bench")
            before, started = store.queries, time.perf_counter()
            for address in drawn:
                lookup.answer(info, V4, address)
            seconds = time.perf_counter() - started
            results.append(HitRatio(model, size, lookups, store.queries - before, len(lookup.ranges), seconds))
    return results


@dataclass(frozen=True)
class Latency:
    name: str
    samples: list[float]


def latencies(endpoint_client: Any, table: str, dataset: str, rows: list[list[str]], samples: int) -> list[Latency]:
    """Warm handler calls on DynamoDB Local, Zipf addresses: with the range cache off (every lookup one Query), and
    on (each call sorted into hit or miss by the cache's own count)."""
    template = json.loads((EVENTS / "lookup-get.json").read_text())
    drawn = addresses(rows, "zipf", samples, seed=29)
    obs = Observability(service=LOOKUP_SERVICE, tracing=False)
    context = LambdaContext()
    out: dict[str, list[float]] = {"cache off": [], "cache on, hit": [], "cache on, miss": []}
    for range_bytes in (0, 128 * MIB):
        settings = LookupSettings(table=TableSettings(table), caches=CacheLimits(range_bytes=range_bytes))
        tables = Tables.connect(endpoint_client, table)
        lookup = Lookup(tables, settings.cache_ttl, limits=settings.caches)
        api = create_app(settings, lookup, tables, obs)
        handler: Callable[[dict[str, Any], Any], dict[str, Any]] = obs.wrap(api.handle)
        events = [
            {**template, "queryStringParameters": {"ip": format_address(V4, a), "dataset": dataset}} for a in drawn
        ]
        handler(events[0], context)  # the live pointer and version, read once
        for ev in events:
            hits = lookup.ranges.hits
            started = time.perf_counter()
            handler(ev, context)
            elapsed = time.perf_counter() - started
            if range_bytes == 0:
                out["cache off"].append(elapsed)
            else:
                out["cache on, hit" if lookup.ranges.hits > hits else "cache on, miss"].append(elapsed)
    return [Latency(name, values) for name, values in out.items()]


def default_ratio(ratios: list[HitRatio]) -> HitRatio:
    """Zipf at the default size: the figure the targets and the cost section use."""
    return next(r for r in ratios if r.model == "zipf" and r.cache_bytes == SIZES[-1])


def markdown(ratios: list[HitRatio], timed: list[Latency], warm_off: float, warm_hit: float, rows: int) -> str:
    """Section 7 of the report; ``warm_off``/``warm_hit``: the overhead probe's median (seconds) with the range
    cache off and with every call a hit (the probe asks one address again and again)."""
    default = default_ratio(ratios)
    lines = [
        "### 6. The range cache: a Query saved for every address inside a stretch already answered",
        "",
        f"Hit ratios: {default.lookups:,} lookups per row through `Lookup.answer`, one fresh container per cache size, "
        f"against a counting in-memory store holding the whole shared IPv4 file ({rows:,} rows). `uniform`: "
        "addresses uniform between the file's first and last address; `zipf`: a range by Zipf(1.0) popularity "
        "(ranks shuffled), then an address inside it. On AWS each container has its own cache: the ratio holds for "
        "the traffic one container receives.",
        "",
        "| model | RANGE_CACHE_BYTES | hit ratio | Queries per lookup | entries kept | s per 1M lookups |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in ratios:
        lines.append(
            f"| {r.model} | {r.cache_bytes // MIB} MiB | {r.hit_ratio:.1%} | {r.queries / r.lookups:.3f} "
            f"| {r.entries:,} | {r.seconds / r.lookups * 1e6:.1f} |"
        )
    lines += [
        "",
        f"- Zipf at the default size (128 MiB): **{default.hit_ratio:.1%}** hits (target at least 80%: "
        f"{mark(default.hit_ratio >= 0.8)})",
        f"- a whole warm handler call, in-memory client (section 3's probe): **{warm_hit * 1e6:.0f} us** on a hit, "
        f"{warm_off * 1e6:.0f} us with the cache off: {(warm_hit - warm_off) * 1e6:+.0f} us (target within +10 us: "
        f"{mark(warm_hit - warm_off <= 10e-6)})",
        "",
        "Warm handler calls on DynamoDB Local (Zipf addresses over the loaded slice, the real app):",
        "",
        "| calls | n | p50 ms | p99 ms |",
        "|---|---:|---:|---:|",
    ]
    for latency in timed:
        samples = latency.samples
        p50, p99 = (percentile(samples, share) * 1e3 if samples else math.nan for share in (0.5, 0.99))
        lines.append(f"| {latency.name} | {len(samples):,} | {p50:.3f} | {p99:.3f} |")
    return "\n".join(lines)
