"""``python -m planner FILE... [--json]``: what loading these files and a lookup rate will do on AWS, before
paying for it; ``--study`` compares the capacity model with the design's study (``make plan``, README: Capacity).

Files are read as the loader reads a folder (a ``_settings.json`` among them applies; a directory stands for its
files). Each table mode is then simulated with this project's loader as the stack deploys it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fencepost.core.storage.objects import SETTINGS_NAME, FolderError
from fencepost.declared import CHUNK_ITEMS, LOADER_CONCURRENCY, WRITE_THREADS, SettingsError
from fencepost.loading.progress import LoadFailure
from planner.keyed_plan import KeyedPlanned, keyed_plan
from planner.loads import CANDIDATES, SHOWN, ModePlan, cheapest_within, deploy_arguments, hottest_share_spread
from planner.loads import plan_mode as simulate
from planner.local_build import Build, read_build
from planner.reads import ReadPlan, plan_reads
from planner.study import as_json, our_loads, study_loads, study_reads, study_rows

SHARED_IPV4 = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "iptoasn-ip2country-v4-20241107.tsv.gz"


def duration(text: str) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([smh]?)", text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 90s, 10m or 1h")
    return float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


def _files(arguments: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in arguments:
        found += sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
    return found


def _clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m {rest:02d}s" if minutes else f"{rest}s"


def _table(plans: list[ModePlan]) -> list[str]:
    lines = [
        "| mode | to READY | writing | writes/s | calls throttled | partitions touched | hottest partition | cost |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in plans:
        lines.append(
            f"| `{p.mode}` | {_clock(p.seconds)} | {_clock(p.write_seconds)} | {p.writes_per_second:,.0f} "
            f"| {p.throttled_share:.1%} | {p.partitions_touched} of {p.partitions} | {p.hottest_partition_share:.1%} "
            f"| ${p.cost_usd:,.2f} |"
        )
    return lines


def _reads_text(plan: ReadPlan) -> list[str]:
    top = ", ".join(f"{k.key} {k.queries_per_second:,.0f}/s" for k in plan.keys[:5])
    return [
        "",
        f"Reads at {plan.lookups_per_second:,.0f} lookups/s ({plan.skew}): the range cache answers "
        f"{plan.hit_ratio:.1%} (one warm container, default size), so {plan.queries_per_second:,.0f} Queries/s reach "
        f"the table; busiest keys: {top}.",
        f"First to throttle: {plan.first_throttle_key}, at {plan.first_throttle_lookups_per_second:,.0f} lookups/s "
        f"(its partition's 4,500 eventually consistent read units); that is the largest sustained rate before any "
        f"split. Split for heat lifts it after about {plan.minutes_to_split:.0f} minutes of sustained heat, up to "
        f"the table's quota of 40,000 read units: {plan.with_splits_lookups_per_second:,.0f} lookups/s.",
        "The layout tops out at one /8 key value's reads on one partition (9,000 Queries/s) until it splits; what "
        "lifts it: range-cache hits (no Query), warm read throughput (more partitions from the start), a finer key "
        "for a hot /8.",
    ]


@dataclass(frozen=True, slots=True)
class Planned:
    build: Build
    shown: list[ModePlan]
    recommendation: dict[str, str]
    spread: tuple[float, float]
    within: float
    workers: int
    threads: int
    reads: ReadPlan | None

    def as_json(self) -> dict[str, Any]:
        build = self.build
        return {
            "dataset": build.dataset,
            "rows": build.rows,
            "items": len(build.items),
            "write_units": sum(item.units for item in build.items),
            "chunks": len(build.chunks),
            "build_seconds": build.seconds,
            "loader": {"workers": self.workers, "threads": self.threads},
            "within_seconds": self.within,
            "modes": [asdict(p) for p in self.shown],
            "hottest_partition_share_on_demand_over_20_versions": list(self.spread),
            "recommendation": self.recommendation,
            **({"reads": asdict(self.reads)} if self.reads else {}),
        }

    def text(self) -> str:
        build, (low, high), rec = self.build, self.spread, self.recommendation
        units = sum(item.units for item in build.items)
        lines = [
            f"{build.dataset}: {build.rows:,} ranges -> {len(build.items):,} items ({units:,.0f} write units) in "
            f"{len(build.chunks)} chunks; reading and cutting them took {build.seconds:.1f} s here.",
            f"Loader: {self.workers} invocations x {self.threads} threads (the stack's defaults), pacing itself to "
            "what the table takes.",
            "",
            *_table(self.shown),
            "",
            f"The hottest partition (which /8 keys share one) changes with every version: on a new on-demand table "
            f"it holds {low:.0%} to {high:.0%} of the items over versions 1-20.",
            f"Recommended: {rec['mode']}, {rec['why']}:",
            f"  {rec['deploy']}",
        ]
        if self.reads is not None:
            lines += _reads_text(self.reads)
        return "\n".join(lines)


class PlanError(Exception):
    """Files the planner cannot read as the loader would, said as the load's report would say it."""


def plan(args: argparse.Namespace) -> Planned | KeyedPlanned:
    missing = [str(path) for path in args.files if not path.exists()]
    if missing:
        raise PlanError(f"no such file or folder: {', '.join(missing)}")
    files = _files(args.files)
    data = [path for path in files if path.name != SETTINGS_NAME]
    if not data:
        raise PlanError(f"no range file in {', '.join(map(str, args.files))}")
    dataset = args.dataset or (args.files[0].name if args.files[0].is_dir() else data[0].name.split(".")[0])
    name = re.sub(r"[^A-Za-z0-9._-]", "-", dataset)[:64] or "data"
    try:
        if (keyed := keyed_plan(files, name)) is not None:  # a table of keys: no items to plan
            return keyed
        build = read_build(files, name, chunk_items=args.chunk_items)
    except LoadFailure as failure:
        raise PlanError(_failed(failure, files)) from None
    except (FolderError, SettingsError, OSError) as error:
        raise PlanError(str(error)) from None
    plans = [simulate(build, mode, workers=args.workers, threads=args.threads, scale=args.scale) for mode in CANDIDATES]
    best = cheapest_within(plans, args.within)
    shown = [p for p in plans if p.mode in SHOWN or (best is not None and p.mode == best.mode)]
    reads = plan_reads(build, args.lookups_per_second, args.skew) if args.lookups_per_second else None
    spread = hottest_share_spread(build, "on-demand-new")
    recommendation = recommend(best, plans, args.within)
    return Planned(build, shown, recommendation, spread, args.within, args.workers, args.threads, reads)


def _failed(failure: LoadFailure, files: list[Path]) -> str:
    """A load's failure with the local file it names (the loader names ``<dataset>/<file>``)."""
    problem = failure.problem
    named = problem.object.rsplit("/", 1)[-1]
    where = next((str(path) for path in files if path.name == named), problem.object or "the files")
    line = f", line {problem.line}" if problem.line else ""
    return (
        f"{where}{line}: {problem.reason} (a load of these files would fail the same way: every file named, and "
        "every file of a folder named, is read as one of the dataset's objects)"
    )


def recommend(best: ModePlan | None, plans: list[ModePlan], within: float) -> dict[str, str]:
    if best is None:
        fastest = min(plans, key=lambda p: p.seconds)
        why = f"no mode loads it within {_clock(within)}; the fastest, {fastest.mode}, takes {_clock(fastest.seconds)}"
        return {"mode": fastest.mode, "deploy": deploy_arguments(fastest.mode), "why": why}
    why = f"the cheapest mode that loads it within {_clock(within)} ({_clock(best.seconds)}, ${best.cost_usd:,.2f})"
    return {"mode": best.mode, "deploy": deploy_arguments(best.mode), "why": why}


def study(args: argparse.Namespace) -> dict[str, Any]:
    path = args.files[0] if args.files else SHARED_IPV4
    rows = study_rows(path)
    build: Build = read_build([path], "study")
    return as_json(study_loads(rows), study_reads(), our_loads(build, workers=args.workers, threads=args.threads))


def _study_text(result: dict[str, Any]) -> str:
    lines = ["| the study's load | table | study writes/s | model writes/s | ratio |", "|---|---|---:|---:|---:|"]
    for load in result["loads"]:
        ratio = load["writes_per_second"] / load["study_writes_per_second"]
        lines.append(
            f"| {load['name']} | `{load['mode']}` | {load['study_writes_per_second']:,.0f} "
            f"| {load['writes_per_second']:,.0f} | {ratio:.2f} |"
        )
    for read in result["reads"]:
        ratio = read["queries_per_second"] / read["study_queries_per_second"]
        lines.append(
            f"| reads: {read['name']} (Queries/s) | `on-demand-new` | {read['study_queries_per_second']:,.0f} "
            f"| {read['queries_per_second']:,.0f} | {ratio:.2f} |"
        )
    lines += [
        "",
        "| our loader, same table | to READY | writing | writes/s | calls throttled | Lambda-seconds |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for load in result["our_loader"]:
        lines.append(
            f"| `{load['mode']}` | {_clock(load['seconds'])} | {_clock(load['write_seconds'])} "
            f"| {load['writes_per_second']:,.0f} | {load['throttled_share']:.1%} | {load['lambda_seconds']:,.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m planner", description=__doc__)
    parser.add_argument("files", nargs="*", type=Path, help="range files (or a folder) as the loader would read them")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of tables")
    parser.add_argument("--within", type=duration, default=duration("10m"), help="target time to READY (10m)")
    parser.add_argument("--dataset", help="the dataset's name (its keys hold it; default: the folder or file name)")
    parser.add_argument("--workers", type=int, default=LOADER_CONCURRENCY, help="loaderConcurrency")
    parser.add_argument("--threads", type=int, default=WRITE_THREADS, help="BatchWriteItem calls per invocation")
    parser.add_argument("--chunk-items", type=int, default=CHUNK_ITEMS, help="items a chunk message holds")
    parser.add_argument("--scale", type=float, default=1.0, help="every capacity figure times this (CAPACITY_SCALE)")
    parser.add_argument("--lookups-per-second", type=float, default=0.0, help="a lookup rate to plan the reads for")
    parser.add_argument("--skew", default="zipf", help="zipf, uniform, or a file of addresses (one a line)")
    parser.add_argument("--study", action="store_true", help="the study's loads and reads beside the model's")
    args = parser.parse_args(argv)
    if args.study:
        result = study(args)
        print(json.dumps(result, indent=1) if args.json else _study_text(result))
        return 0
    if not args.files:
        parser.error("name the files to plan (or --study)")
    try:
        planned = plan(args)
    except PlanError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(planned.as_json(), indent=1) if args.json else planned.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
