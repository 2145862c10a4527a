"""Section 9's tables, from what ``bench.partitions`` measured."""

from __future__ import annotations

import argparse
from typing import Any


def _clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m {rest:02d}s" if minutes else f"{rest}s"


def markdown(data: dict[str, Any], args: argparse.Namespace, seconds: float) -> str:
    return "\n".join(
        [
            *_study(data, seconds),
            *_ours(data),
            *_emulated(data, args.capacity_scale),
            *_planned(data),
        ]
    )


def _study(data: dict[str, Any], seconds: float) -> list[str]:
    lines = [
        "### 9. Partitions: the study reproduced on the capacity model, the loader through the emulator",
        "",
        f"Virtual time for the study ({seconds:,.0f} s for the whole section, real loads included). Chart: "
        "`bench-results/partitions.svg`.",
        "",
        "| the study's load (shared IPv4 file) | table | study | model | model / study |",
        "|---|---|---:|---:|---:|",
    ]
    for load in data["loads"]:
        ratio = load.writes_per_second / load.study_writes_per_second
        lines.append(
            f"| {load.name} | `{load.mode}` | {load.study_writes_per_second:,.0f} writes/s "
            f"| {load.writes_per_second:,.0f} writes/s | {ratio:.2f} |"
        )
    for read in data["reads"]:
        ratio = read.queries_per_second / read.study_queries_per_second
        lines.append(
            f"| {read.name} | `on-demand-new` | {read.study_queries_per_second:,.0f} Queries/s "
            f"| {read.queries_per_second:,.0f} Queries/s | {ratio:.2f} |"
        )
    return lines


def _ours(data: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "Our loader as deployed (10 invocations x 8 threads, chunks of 5,000) writing the same file's "
        f"{data['ours_items']:,} items on the same tables (model, virtual time):",
        "",
        "| table | to READY | writing | writes/s | calls throttled | Lambda-seconds |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for load in data["ours"]:
        lines.append(
            f"| `{load.mode}` | {_clock(load.seconds)} | {_clock(load.write_seconds)} | {load.writes_per_second:,.0f} "
            f"| {load.throttled_share:.1%} | {load.lambda_seconds:,.0f} |"
        )
    return lines


def _emulated(data: dict[str, Any], scale: float) -> list[str]:
    lines = [
        "",
        f"Through the capacity emulator, as a user runs it (`make run CAPACITY=<table> CAPACITY_SCALE={scale:g}`: "
        "2 loader invocations x 8 threads, chunks of 2,000; the file put in the bucket, `GET /datasets/{name}` polled "
        "until READY); writing: from the first second in which the emulated table took a tenth of the load's busiest "
        "second's writes to the last; writes/s: the items over those seconds; allowed: the emulated table's busiest "
        "partition's items at its limit; mismatches: of 1,000 sampled addresses against the file:",
        "",
        "| file | table | pacing | rows | to READY | writing | writes/s | of allowed | write calls | throttled "
        "| mismatches |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for load in [*data["emulated"], data["ipv6"]]:
        share = load.throttled_calls / load.calls if load.calls else 0.0
        lines.append(
            f"| {load.file} | `{load.mode}` | {load.pacing} | {load.rows:,} | {_clock(load.seconds)} "
            f"| {_clock(load.writing_seconds)} | {load.writes_per_second:,.0f} "
            f"| {load.writes_per_second / load.allowed_per_second:.0%} "
            f"| {load.calls:,} | {share:.1%} | {load.mismatches} |"
        )
    return lines


def _planned(data: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "The planner (`python -m planner --scale ... --workers 2 --chunk-items 2000`) against those loads:",
        "",
        "| file | table | planner: to READY | measured | planner / measured |",
        "|---|---|---:|---:|---:|",
    ]
    for name, load, prediction in data["plans"]:
        lines.append(
            f"| {name} slice, {load.rows:,} rows | `{load.mode}` | {_clock(prediction)} | {_clock(load.seconds)} "
            f"| {prediction / load.seconds:.2f} |"
        )
    return lines
