"""Lookups over several datasets: one GET naming three datasets against one naming a single dataset.

The per-dataset Queries of a lookup run concurrently on the lookup's thread pool. Two cores running DynamoDB Local
cannot show that, so the store is ``tests.fakes.ranges.MemoryStore`` with a fixed ``delay`` per Query; the rest
is the lookup function's own app and handler wrapper, warm. ``python -m bench.several`` prints just this section.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from typing import Any

from bench.lookups import quiet_stdout
from bench.report import Report, mark
from bench.timing import median, percentile
from fencepost.core.folders.backfill import Dated
from fencepost.core.sources.schedule import SourceState
from fencepost.core.space.addresses import V4, format_address, parse_address
from fencepost.core.storage.items import Slice
from fencepost.core.versions.history import Timeline
from fencepost.http.app import create_app
from fencepost.model import BuildRecord, DatasetRecord
from fencepost.observability import LOOKUP_SERVICE, Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import CacheLimits, LookupSettings, TableSettings
from tests.fakes.ranges import MemoryStore
from tests.support import V4_FILE, LambdaContext, event, family_ranges, read_tsv

ONE, ALL, FIRST = "one dataset", "three datasets, mode=all", "three datasets, mode=first"
CONFIGURATIONS: dict[str, tuple[str, str | None]] = {
    ONE: ("geo", None),
    ALL: ("geo,halves,lower", None),
    FIRST: ("geo,halves,lower", "first"),
}
DATASETS = "`geo`: the rows as they are; `halves`: every other row; `lower`: the values lower-cased"


@dataclass(frozen=True)
class Timing:
    p50: float  # seconds
    p99: float  # seconds
    queries: float  # Queries per lookup, counted by the store


@dataclass(frozen=True)
class Several:
    delay: float  # seconds added to each Query
    lookups: int  # timed lookups per configuration
    rows: int  # rows of the IPv4 file in the datasets
    pool: int  # the lookup's thread pool size (``batch_concurrency``)
    timings: dict[str, Timing]  # by configuration, as in ``CONFIGURATIONS``

    @property
    def ratio(self) -> float:
        """p50 of a lookup in three datasets over p50 of a lookup in one."""
        return self.timings[ALL].p50 / self.timings[ONE].p50


class _NoListings:
    """The dataset reader the app needs for its other routes; only ``GET /lookup`` is called here."""

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:  # noqa: ARG002
        return None

    def get_timeline(self, dataset: str) -> Timeline:  # noqa: ARG002
        return Timeline([])

    def list_builds(self, dataset: str) -> list[BuildRecord]:  # noqa: ARG002
        return []

    def list_dated(self, dataset: str) -> list[Dated]:  # noqa: ARG002
        return []

    def list_datasets(self) -> list[DatasetRecord]:
        return []

    def list_source_states(self) -> dict[str, SourceState]:
        return {}

    def list_pieces(
        self, dataset: str, version: int, family: int, partition: int, *, bounds: tuple[int, int], limit: int
    ) -> Slice:
        raise NotImplementedError("range listings are not benchmarked here")


def build_store(rows: list[list[str]], delay: float) -> MemoryStore:
    """Three datasets from the same rows, whose answers differ (see ``DATASETS``)."""
    store = MemoryStore(delay=0.0)  # no delay while publishing
    store.publish("geo", 1, family_ranges(rows), ["country"])
    store.publish("halves", 1, family_ranges(rows[::2]), ["country"])
    store.publish("lower", 1, family_ranges([[*row[:2], *(v.lower() for v in row[2:])] for row in rows]), ["cc"])
    store.delay = delay
    return store


def measure(lookups: int = 300, delay: float = 0.005, rows: int = 20_000, seed: int = 17, warmup: int = 50) -> Several:
    """Warm GET lookups of the same random addresses in each configuration, interleaved round-robin."""
    data = read_tsv(V4_FILE, rows)
    store = build_store(data, delay)
    # The range cache off: this section measures the Queries of several datasets running at once (section 6 the cache)
    settings = LookupSettings(table=TableSettings("bench"), caches=CacheLimits(range_bytes=0))
    obs = Observability(service=LOOKUP_SERVICE, tracing=False)
    api = create_app(settings, Lookup(store, settings.cache_ttl, limits=settings.caches), _NoListings(), obs)

    def handle(request: dict[str, Any], context: Any) -> dict[str, Any]:  # as fencepost.handlers.lookup does
        obs.logger.set_correlation_id(request["requestContext"]["requestId"])
        return api.handle(request, context)

    handler = obs.wrap(handle)
    rng = random.Random(seed)
    low, high = parse_address(data[0][0])[1], parse_address(data[-1][1])[1]
    addresses = [format_address(V4, rng.randint(low, high)) for _ in range(warmup + lookups)]
    events: dict[str, list[dict[str, Any]]] = {}
    for name, (datasets, mode) in CONFIGURATIONS.items():
        query = {"dataset": datasets} | ({"mode": mode} if mode else {})
        events[name] = [event("lookup-get", queryStringParameters={"ip": ip, **query}) for ip in addresses]
    context = LambdaContext()
    names = list(CONFIGURATIONS)
    samples: dict[str, list[float]] = {name: [] for name in names}
    queries = dict.fromkeys(names, 0)
    with quiet_stdout():  # the handler's metric lines, as Lambda writes them
        for index in range(warmup):  # the first call of each dataset reads its pointer and version
            for name in names:
                status = handler(events[name][index], context)["statusCode"]
                assert status in (200, 404), f"{name}: {status}"
        for index in range(warmup, warmup + lookups):
            turn = index % len(names)
            for name in names[turn:] + names[:turn]:  # rotate who goes first
                before = store.queries
                started = time.perf_counter()
                handler(events[name][index], context)
                samples[name].append(time.perf_counter() - started)
                queries[name] += store.queries - before
        sys.stdout.flush()  # what the handler printed goes where file descriptor 1 points now
    timings = {
        name: Timing(median(values), percentile(values, 0.99), queries[name] / lookups)
        for name, values in samples.items()
    }
    return Several(delay, lookups, rows, settings.batch_concurrency, timings)


def section(delayed: Several, bare: Several) -> str:
    """Lookups in one and in three datasets: ``delayed`` with a store stub's fixed delay, ``bare`` without."""
    first_ratio = delayed.timings[FIRST].p50 / delayed.timings[ONE].p50
    extra = (bare.timings[ALL].p50 - bare.timings[ONE].p50) / 2
    lines = [
        "### 5. Several datasets in one lookup: the per-dataset Queries run concurrently",
        "",
        f"The lookup function's app and handler wrapper, warm, over a store stub (`MemoryStore`) that adds a fixed "
        f"{delayed.delay * 1e3:g} ms per Query instead of DynamoDB Local (two cores running it cannot show "
        f"concurrency); a thread pool of {delayed.pool}; {delayed.lookups} GET lookups per configuration of the "
        f"same random addresses, interleaved; three datasets from the first {delayed.rows:,} rows of the IPv4 "
        f"file ({DATASETS}). Without the delay: {bare.lookups:,} lookups each, the handler's own cost.",
        "",
        "| lookup | p50 ms | p99 ms | Queries per lookup | no delay: p50 us | no delay: p99 us |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, (datasets, mode) in CONFIGURATIONS.items():
        timed, pure = delayed.timings[name], bare.timings[name]
        query = f"`dataset={datasets}{'&mode=' + mode if mode else ''}`"
        lines.append(
            f"| {name}: {query} | {timed.p50 * 1e3:.2f} | {timed.p99 * 1e3:.2f} | {timed.queries:g} "
            f"| {pure.p50 * 1e6:.0f} | {pure.p99 * 1e6:.0f} |"
        )
    lines += [
        "",
        f"- p50 three datasets / p50 one: **{delayed.ratio:.2f}x** (target at most 1.3x: "
        f"{mark(delayed.ratio <= 1.3)}); with mode=first: {first_ratio:.2f}x",
        f"- with no delay, each dataset beyond the first adds {extra * 1e6:.0f} us at p50 "
        f"({bare.timings[ONE].p50 * 1e6:.0f} us for one, {bare.timings[ALL].p50 * 1e6:.0f} us for three: "
        "the thread pool's hand-off and combining the answers)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:

    parser = argparse.ArgumentParser(prog="python -m bench.several", description=__doc__)
    parser.add_argument("--lookups", type=int, default=300, help="timed lookups per configuration, 5 ms per Query")
    parser.add_argument("--handler-lookups", type=int, default=2000, help="the same, with no delay")
    args = parser.parse_args(argv)
    report = Report.on_this_machine()
    report.sections.append(section(measure(args.lookups), measure(args.handler_lookups, delay=0.0)))
    print(f"Measured by `python -m bench.several` ({report.date}; {report.machine})\n\n{report.sections[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
