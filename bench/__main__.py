"""``make bench``: every figure measured in one run on this machine, written as a Markdown table.

Loading and lookups run against one DynamoDB Local, warmed up first (its JIT compiler makes the first
seconds slow), so that the ratios compare like with like even on a noisy machine.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import logging
import random
import subprocess
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bench import (
    cold_start,
    costs,
    enrichment,
    enrichment_jobs,
    exports,
    hardening,
    history,
    joins,
    loading,
    lookups,
    make_run,
    partitions,
    processes,
    reverse,
    several,
    soak,
    tables,
    workload,
)
from bench.lookups import quiet_stdout
from bench.processes import RESULTS
from bench.report import Report
from bench.timing import median, percentile, say
from capacity import prices
from fencepost.declared import CHUNK_ITEMS, WRITE_THREADS
from infra import packaging
from infra.settings import DeploySettings
from infra.sizes import LOADER_MEMORY_MB, LOOKUP_MEMORY_MB
from local.config import DISK, MEMORY, StackConfig
from local.dynamodb import JAVA_OPTIONS, find_jar
from local.stack import LocalStack
from tests.support import V4_FILE, read_tsv

LOADER_WORKERS = 2  # loader invocations at once
# The lookup function's environment as the template deploys it, where it changes what a warm call costs.
DEPLOYED = DeploySettings().lookup_environment()


def _slice(rows: int) -> list[bytes]:
    with gzip.open(V4_FILE, "rb") as handle:
        return list(itertools.islice(handle, rows))


@dataclass
class StackFigures:
    """What the bench measures on the local stack, for the sections that follow."""

    lines: list[bytes]  # the slice loaded
    loader: loading.LoadResult
    best_load: loading.LoadResult
    wcu_per_item: float
    item_bytes: float
    rcu_per_query: float
    cached: list[workload.Latency]


def run(args: argparse.Namespace) -> Report:
    report = Report.on_this_machine()
    report.configuration = _configuration(args)
    figures = _on_the_stack(args, report)
    say(f"Loading {args.rows} rows through make run's configuration, table in memory and on disk, and restarting...")
    runs = [make_run.measure(figures.lines, args.rows // 5, store) for store in (MEMORY, DISK)]
    report.sections.insert(1, make_run.markdown(runs, figures.best_load))

    say("Measuring handler overhead and cold imports in fresh processes...")
    warm, warm_hit, batch, batch_hit = _handler_calls(args)
    report.overhead(warm, warm_hit, processes.imports(args.imports))
    say("Measuring cold imports from the Lambda asset, with and without its bytecode...")
    report.sections.append(cold_start.markdown(cold_start.measure(packaging.build(), args.imports)))

    say("Running the pure pipeline on the full files and a synthetic file...")
    report.pipeline(processes.pipelines(args.synthetic))
    say("Deciding the gates on real and sparse feeds, and reading crafted MaxMind DB files...")
    report.sections.append(hardening.measure(gate_rows=args.gate_rows, scale=args.crafted_scale))

    say(f"Timing {args.several_lookups} lookups in one and in three datasets, 5 ms per Query...")
    delayed, bare = several.measure(args.several_lookups), several.measure(args.several_handler_lookups, delay=0.0)
    report.sections.append(several.section(delayed, bare))
    report.sections += joins.sections(args)
    say(f"Counting range-cache hits over {args.workload_lookups:,} lookups per model and size...")
    rows = read_tsv(V4_FILE)
    ratios = workload.hit_ratios(rows, args.workload_lookups)
    report.sections.append(
        workload.markdown(ratios, figures.cached, warm["median_us"] / 1e6, warm_hit["median_us"] / 1e6, len(rows))
    )
    measured = costs.Measured(
        read_units_per_query=figures.rcu_per_query,
        hit_ratio=workload.default_ratio(ratios).hit_ratio,
        hit_us=warm_hit["median_us"],
        miss_us=warm["median_us"],
        batch_hit_us=batch_hit["median_us"],
        batch_miss_us=batch["median_us"],
        metric_line_bytes=costs.metric_line_bytes(),
        access_log_bytes=costs.access_log_bytes(),
    )
    report.sections.append(costs.markdown(measured, LOOKUP_MEMORY_MB))
    loader = figures.loader
    say("Reproducing the study on the capacity model, and loading through the capacity emulator...")
    partition_section = partitions.section(args, RESULTS)
    report.costs(
        wcu_per_item=figures.wcu_per_item,
        item_bytes=figures.item_bytes,
        items_per_range=loader.items / loader.rows,
        loader_seconds_per_range=loader.invocation_seconds / loader.rows,
        loader_memory_mb=LOADER_MEMORY_MB,
        messages_per_range=3 / CHUNK_ITEMS,  # a chunk is sent, received and deleted
    )
    report.sections.append(partition_section)
    report.sections += _what_versions_give(args)
    say("Timing lookups in the past against live ones, resolving instants, and pages of a diff between versions...")
    past = processes.probe("warm-as-of", str(args.invocations), env=OFF)
    report.sections.append(history.section(warm, past, history.resolution(), history.diff_pages()))
    report.sections += _soak_and_enrichment(args)
    return report


def _soak_and_enrichment(args: argparse.Namespace) -> list[str]:
    """Sections 13 (left out with ``--soak-rows 0``), 14, 14b (left out with ``--jobs-megabytes 0``) and 15."""
    say("Soaking: the IPv4 file loaded twice, looked up throughout, under injected faults...")
    soaked = soak.run(args)
    say(f"Enriching {args.enrich_addresses:,} addresses and {args.enrich_alb_lines:,} ALB log lines, one core...")
    sections = [*([] if soaked is None else [soaked]), enrichment.section(args)]
    say(f"Enriching {args.jobs_megabytes:,} MB of ALB log as a job in the bucket, under make run...")
    jobs = enrichment_jobs.section(args)
    say(f"Writing versions as Parquet tables, and joining {args.tables_addresses:,} addresses in DuckDB...")
    return [*sections, *([] if jobs is None else [jobs]), tables.section(args)]


# As deployed (metric lines once a minute); the range cache off, every call makes its Query; on, every call after the
# first is a hit (one address again and again, or 100 addresses in one range).
OFF = {**DEPLOYED, "RANGE_CACHE_BYTES": "0"}


def _handler_calls(args: argparse.Namespace) -> tuple[dict[str, Any], ...]:
    """Section 3's warm calls, in fresh processes: one lookup with the range cache off and on, then a batch."""
    batches = str(max(50, args.invocations // 100))
    return (
        processes.probe("warm", str(args.invocations), env=OFF),
        processes.probe("warm", str(args.invocations), env=DEPLOYED),
        processes.probe("batch", batches, env=OFF),
        processes.probe("batch", batches, env=DEPLOYED),
    )


def _what_versions_give(args: argparse.Namespace) -> list[str]:
    """Sections 10 and 11: reverse lookups' value index, and exports."""
    say("Building value indexes, paging reverse lookups, and loading with and without an index...")
    index = reverse.section(args)
    say("Exporting whole versions as CSV, CIDR lists and MaxMind DB files...")
    return [index, exports.section(args.export_rows)]


def _configuration(args: argparse.Namespace) -> list[str]:
    """What this run measured with, for the report's head."""
    shown = {name: " ".join(map(str, v)) if isinstance(v, list) else v for name, v in sorted(vars(args).items())}
    options = " ".join(f"--{name.replace('_', '-')} {value}" for name, value in shown.items())
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False).stderr.splitlines()
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True, check=False)
    return [
        f"`python -m bench {options}`",
        f"code: {commit.stdout.strip() or 'not a git checkout'}; DynamoDB Local {find_jar().parent.name} on "
        f"{java[0] if java else 'java'} ({' '.join(JAVA_OPTIONS)})",
        f"sections 1, 2 and 6 (DynamoDB Local part): DynamoDB Local in memory; the loader with {LOADER_WORKERS} "
        f"writers, chunks of {CHUNK_ITEMS:,} items, {WRITE_THREADS} threads each, no settling, range cache off, the "
        f"lookup's metrics written every {DEPLOYED['METRICS_INTERVAL_SECONDS']} s as deployed",
        "section 1b: `make run`'s configuration (`local.stack.StackConfig` defaults: 2 writers, chunks of 2,000 "
        "items, 8 threads each, 2 s to settle; the table in memory, then on disk as `--table disk` keeps it)",
        f"sections 3 and 7: the lookup function's environment as deployed ({', '.join(DEPLOYED)}), "
        "DynamoDB replaced by an in-memory client",
        "section 9: the capacity model (capacity) in virtual time for the study's loads and our loader as "
        f"deployed; then `python -m local --capacity <table> --capacity-scale {args.capacity_scale:g}` (make run's "
        "configuration, the capacity emulator in front of DynamoDB Local), one process a load",
        f"section 13: `make run`'s loader configuration under `FAULTS={soak.FAULTS}` (`python -m bench.soak`), "
        "the data lane's workers as processes, the range cache off, 2 threads looking up over HTTP",
    ]


def _on_the_stack(args: argparse.Namespace, report: Report) -> StackFigures:
    """Sections 1 and 2, and the DynamoDB Local part of section 6: one local stack, in memory."""
    lines = _slice(args.rows)
    body = b"".join(lines)
    config = StackConfig.ephemeral(
        http_port=None,
        workers=LOADER_WORKERS,
        log_level="WARNING",
        metrics=True,
        loader_env={
            "SETTLE_SECONDS": "0",
            "CHUNK_ITEMS": str(CHUNK_ITEMS),
            "WRITE_THREADS": str(WRITE_THREADS),
            "DELETE_GRACE_SECONDS": "3600",
            "DEADLINE_MARGIN_SECONDS": "20",
            # Section 2 compares the handler's one Query with the bare Query: the range cache off (section 6 has it),
            # the lookup's metrics added up and written once a minute, as deployed (make run writes them per call)
            "RANGE_CACHE_BYTES": "0",
            "METRICS_INTERVAL_SECONDS": DEPLOYED["METRICS_INTERVAL_SECONDS"],
        },
    )
    say(f"Loading {args.rows} rows three ways (the reference takes a few minutes)...")
    with LocalStack(config) as stack, quiet_stdout():  # the functions' metric lines, as Lambda writes them
        assert stack.dynamodb is not None
        endpoint = stack.dynamodb.endpoint
        loading.project(stack, b"".join(lines[: args.rows // 5]), args.rows // 5, "warmup")  # warm the JIT
        reference = loading.reference(endpoint, lines)
        items = loading.loader_items(lines)
        bounds, loads = [], []
        for attempt in range(args.repeat):
            loads.append(loading.project(stack, body, len(lines), f"bench{attempt}"))
            bounds.append(loading.bound(endpoint, items, LOADER_WORKERS * WRITE_THREADS))
        best = max(loads, key=lambda r: r.rate)
        report.loading(reference, best, max(bounds, key=lambda r: r.rate))

        say(f"Timing {args.lookups} lookups three ways...")
        rng = random.Random(17)
        ranges = [line.decode().split("\t")[:2] for line in lines]
        low = int.from_bytes(bytes(int(p) for p in ranges[0][0].split(".")), "big")
        high = int.from_bytes(bytes(int(p) for p in ranges[-1][1].split(".")), "big")
        addresses = [rng.randint(low, high) for _ in range(args.lookups)]
        measured = lookups.run(stack, "bench0", reference.table, addresses)
        latencies = measured["latencies"]
        report.lookups({name: (median(v.samples), percentile(v.samples, 0.99)) for name, v in latencies.items()})
        say(f"Timing {args.cache_samples} Zipf lookups with the range cache off and on, on DynamoDB Local...")
        slice_rows = [line.decode().rstrip("\n").split("\t") for line in lines]
        cached = workload.latencies(
            stack.client("dynamodb"), stack.config.table, "bench0", slice_rows, args.cache_samples
        )
    return StackFigures(
        lines=lines,
        loader=loads[0],
        best_load=best,
        wcu_per_item=bounds[0].consumed_wcu / bounds[0].items,
        item_bytes=loading.mean_item_bytes(items),
        rcu_per_query=measured["rcu_per_lookup"],
        cached=cached,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000, help="rows of the IPv4 slice to load")
    parser.add_argument("--repeat", type=int, default=2, help="runs of the loader and of the bound (best kept)")
    parser.add_argument("--lookups", type=int, default=2000, help="random addresses looked up")
    parser.add_argument("--invocations", type=int, default=20_000, help="warm invocations for the overhead")
    parser.add_argument("--imports", type=int, default=7, help="fresh processes per cold-import figure")
    parser.add_argument("--several-lookups", type=int, default=300, help="lookups in one and in three datasets")
    parser.add_argument(
        "--several-handler-lookups", type=int, default=2000, help="the same with no Query delay (handler cost)"
    )
    parser.add_argument("--synthetic", type=int, default=5_000_000, help="rows of the synthetic file")
    parser.add_argument(
        "--workload-lookups", type=int, default=1_000_000, help="lookups per model and range-cache size"
    )
    parser.add_argument("--cache-samples", type=int, default=3000, help="timed lookups, range cache off and on")
    parser.add_argument("--gate-rows", type=int, help="rows of the shared IPv4 file the gates decide on (all)")
    partitions.add_arguments(parser)
    parser.add_argument("--export-rows", type=int, default=4_000_000, help="rows of the synthetic file exported")
    parser.add_argument("--crafted-scale", type=float, default=1.0, help="multiplies the crafted MMDB files' size")
    soak.add_arguments(parser)
    joins.add_arguments(parser)
    enrichment.add_arguments(parser)
    enrichment_jobs.add_arguments(parser)
    tables.add_arguments(parser)
    args = parser.parse_args(argv)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    started = time.monotonic()
    report = run(args)
    text = report.markdown(prices.PRICES_DATE, round(time.monotonic() - started))
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    (RESULTS / f"bench-{stamp}.md").write_text(text)
    (RESULTS / "latest.md").write_text(text)
    print(text)
    print(f"Saved to {RESULTS / 'latest.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
