"""The benchmark's results as Markdown tables, each target marked as met or missed."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bench.loading import LoadResult
from capacity import prices


def mark(ok: bool) -> str:
    return "met" if ok else "**missed**"


@dataclass
class Report:
    date: str
    machine: str
    sections: list[str] = field(default_factory=list)
    configuration: list[str] = field(default_factory=list)  # what the run measured with, one line each

    @classmethod
    def on_this_machine(cls) -> Report:
        """A report dated now, naming this machine."""
        return cls(
            date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            machine=f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
        )

    def loading(self, reference: LoadResult, loader: LoadResult, bound: LoadResult) -> None:
        over_reference = loader.rate / reference.rate
        of_bound = loader.rate / bound.rate
        self.sections.append(
            "\n".join(
                [
                    f"### 1. Loading {loader.rows:,} rows of the IPv4 file into DynamoDB Local",
                    "",
                    "| approach | rows/s | seconds |",
                    "|---|---:|---:|",
                    f"| reference: one thread, file order, resource `put_item` per row | {reference.rate:,.0f} "
                    f"| {reference.seconds:.1f} |",
                    f"| loader: S3 put to READY through the real handlers | {loader.rate:,.0f} "
                    f"| {loader.seconds:.1f} |",
                    f"| bound: pre-built 25-item BatchWriteItem, {bound.threads} threads | {bound.rate:,.0f} "
                    f"| {bound.seconds:.1f} |",
                    "",
                    f"- loader / reference: **{over_reference:.1f}x** "
                    f"(target at least 10x: {mark(over_reference >= 10)})",
                    f"- loader / bound: **{of_bound:.0%}** (target at least 70%: {mark(of_bound >= 0.7)})",
                ]
            )
        )

    def lookups(self, latencies: dict[str, tuple[float, float]]) -> None:
        floor, reference, handler = latencies["floor"], latencies["reference"], latencies["handler"]
        ratio = handler[0] / floor[0]
        rows = {
            "floor: bare low-level `query`": floor,
            "reference: the design's handler (resource `table.query`)": reference,
            "handler: the project's lookup handler (API Gateway v2 event)": handler,
        }
        self.sections.append(
            "\n".join(
                [
                    "### 2. Lookup latency, same random addresses, calls interleaved",
                    "",
                    "| path | p50 ms | p99 ms |",
                    "|---|---:|---:|",
                    *(f"| {name} | {p50 * 1e3:.2f} | {p99 * 1e3:.2f} |" for name, (p50, p99) in rows.items()),
                    "",
                    f"- handler p50 / floor p50: **{ratio:.2f}x** (target at most 1.10x: {mark(ratio <= 1.10)})",
                    f"- handler p50 below the reference's: {mark(handler[0] < reference[0])} "
                    f"({handler[0] * 1e3:.2f} vs {reference[0] * 1e3:.2f} ms)",
                ]
            )
        )

    def overhead(self, warm: dict[str, float], hit: dict[str, float], imports: dict[str, float]) -> None:
        """``warm``: a GET lookup with the range cache off (every call a Query); ``hit``: answered by the cache."""
        baseline = imports["boto3 + client"]
        lines = [
            "### 3. Handler overhead, DynamoDB replaced by an in-memory client",
            "",
            f"- warm lookup invocation, range cache off: **{warm['median_us']:.0f} us** median, "
            f"{warm['p99_us']:.0f} us p99 (target at most 100 us: {mark(warm['median_us'] <= 100)})",
            f"- warm lookup invocation, a range-cache hit: **{hit['median_us']:.0f} us** median, "
            f"{hit['p99_us']:.0f} us p99 (target at most 80 us: {mark(hit['median_us'] <= 80)})",
            "",
            "| cold import in a fresh process (median) | ms | above `import boto3` + client |",
            "|---|---:|---:|",
        ]
        for name, seconds in imports.items():
            above = (seconds - baseline) * 1e3
            target = "" if name == "boto3 + client" or "tracing" in name else f" ({mark(above <= 120)})"
            lines.append(f"| {name} | {seconds * 1e3:.0f} | {above:+.0f}{target} |")
        tracing = imports["lookup handler, tracing on"] - imports["lookup handler"]
        lines += ["", f"- tracing on costs **{tracing * 1e3:.0f} ms** more cold start (aws_xray_sdk and the Tracer)"]
        self.sections.append("\n".join(lines))

    def pipeline(self, runs: dict[str, dict[str, Any]]) -> None:
        lines = [
            "### 4. The pure pipeline (read, validate, flatten, chunk), one process per file",
            "",
            "| input | rows | items | rows/s | read s | flatten s | chunk s | peak memory MB |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, run in runs.items():
            lines.append(
                f"| {name} | {run['rows']:,} | {run['items']:,} | {run['rows_per_second']:,.0f} "
                f"| {run['read_seconds']:.1f} | {run['flatten_seconds']:.1f} | {run['chunk_seconds']:.1f} "
                f"| {run['peak_mb']:,.0f} |"
            )
        lines += ["", "Peak memory is the process's maximum resident set, interpreter included (about 40 MB)."]
        self.sections.append("\n".join(lines))

    def costs(
        self,
        *,
        wcu_per_item: float,
        item_bytes: float,
        items_per_range: float,
        loader_seconds_per_range: float,
        loader_memory_mb: int,
        messages_per_range: float,
    ) -> None:
        """What loading costs (lookups: section 7, ``bench.costs``)."""
        million = 1_000_000
        load = {
            "DynamoDB writes": wcu_per_item * items_per_range * prices.DYNAMODB_WRITE_PER_MILLION_WRU,
            "deleting it when replaced (the same writes again)": wcu_per_item
            * items_per_range
            * prices.DYNAMODB_WRITE_PER_MILLION_WRU,
            "Lambda (loader time)": million
            * loader_seconds_per_range
            * loader_memory_mb
            / 1024
            * prices.LAMBDA_ARM_PER_GB_SECOND,
            "SQS (chunk messages)": messages_per_range * prices.SQS_PER_MILLION_REQUESTS,
        }
        storage = million * items_per_range * item_bytes / 1e9 * prices.DYNAMODB_STORAGE_PER_GB_MONTH
        lines = [
            "### 8. Cost of loading, from measured consumed capacity and us-east-1 prices of " + prices.PRICES_DATE,
            "",
            f"- measured: {wcu_per_item:.2f} write units per item, {items_per_range:.4f} items per range, "
            f"{item_bytes:.0f} bytes per item",
            "",
            "| per million ranges loaded | $ |",
            "|---|---:|",
            *(f"| {name} | {dollars:.3f} |" for name, dollars in load.items()),
            f"| **total** | **{sum(load.values()):.3f}** |",
            "",
            f"- storage: ${storage:.3f} per million ranges per month (live and previous versions both count)",
            f"- prices: {prices.PRICES_SOURCE}",
        ]
        self.sections.append("\n".join(lines))

    def markdown(self, prices_date: str, seconds: int) -> str:
        header = [
            f"## Benchmarks ({self.date}; {self.machine}; prices of {prices_date}; {seconds} s)",
            "",
            "Measured by `make bench` against DynamoDB Local and the local S3/SQS on this machine, in one run.",
        ]
        if self.configuration:
            header += ["", "Configuration:", "", *(f"- {line}" for line in self.configuration)]
        return "\n\n".join(["\n".join(header), *self.sections]) + "\n"
