"""Section 10 of ``make bench`` in Markdown: the figures ``bench.reverse`` measured."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.report import mark

if TYPE_CHECKING:
    from bench.partitions import EmulatedLoad

S3_GET_PER_MILLION = 0.40  # USD per million GET requests, S3 Standard, us-east-1 (capacity.prices' date)
TARGET_RATIO = 1.3
TARGET_THROTTLED = 0.05


@dataclass(frozen=True)
class Built:
    file: str
    column: str
    pieces: int
    values: int
    flatten_seconds: float
    index_seconds: float
    index_bytes: int
    directory_bytes: int


@dataclass(frozen=True)
class Pages:
    values: int
    pages: int
    pieces: int
    gets_per_page: float
    bytes_per_get: float  # median, of the index GETs
    page_ms: float  # median handler time of a page
    values_ms: float  # median handler time of a values listing page (directory held)


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}m {seconds % 60:02.0f}s"


def _throttled(load: EmulatedLoad) -> float:
    return load.throttled_calls / load.calls if load.calls else 0.0


def markdown(
    built: list[Built], pages: Pages, plain: EmulatedLoad, indexed: EmulatedLoad, args: argparse.Namespace
) -> str:
    lines = [
        "### 10. Reverse lookups: the value index",
        "",
        "Building one column's index from the flattened pieces (median of 3, beside flattening the same file, "
        "this run):",
        "",
        "| file | column | pieces | values | flatten s | index s | index / flatten | index MB | directory KB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for b in built:
        lines.append(
            f"| {b.file} | `{b.column}` | {b.pieces:,} | {b.values:,} | {b.flatten_seconds:.2f} "
            f"| {b.index_seconds:.2f} | {b.index_seconds / b.flatten_seconds:.2f}x | {b.index_bytes / 1e6:.1f} "
            f"| {b.directory_bytes / 1e3:.0f} |"
        )
    ratio = indexed.seconds / plain.seconds if plain.seconds else float("inf")
    worst = max(plain.worst_range_throttled, indexed.worst_range_throttled)
    lines += [
        "",
        f"A page of `GET /ranges?where=country:<value>&limit=1000`, every value of the IPv4 file paged through "
        f"({pages.values} values, {pages.pages:,} pages, {pages.pieces:,} pieces), on the lookup app with the "
        "version in memory and the index in a bucket stub that counts its GETs:",
        "",
        f"- S3 GETs per page: **{pages.gets_per_page:.2f}** (the directory's one GET per container included); "
        f"bytes per index GET (median): {pages.bytes_per_get / 1e3:.1f} KB; DynamoDB reads per page: 0 "
        "(the live pointer and version are the lookups' cached ones)",
        f"- handler time per page (median, no S3 latency): {pages.page_ms:.2f} ms; a values page of 100 "
        f"sorted by IPv4 space (directory held): {pages.values_ms:.2f} ms",
        f"- cost: ${S3_GET_PER_MILLION:.2f} per million pages (S3 GET price)",
        "",
        f"Loading the first {plain.rows:,} rows of the IPv4 file through the capacity emulator "
        f'(`{plain.mode}`, scale {args.capacity_scale:g}, pacing on), without and with `"index": ["col3"]`:',
        "",
        "| index | to READY | write calls | throttled calls | worst key range: units refused | mismatches |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, load in (("none", plain), ("`col3`", indexed)):
        lines.append(
            f"| {name} | {_minutes(load.seconds)} | {load.calls:,} | {_throttled(load):.1%} "
            f"| {load.worst_range_throttled:.1%} | {load.mismatches} |"
        )
    lines += [
        "",
        f"- with the index / without: **{ratio:.2f}x** the time to READY (target at most {TARGET_RATIO}x: "
        f"{mark(ratio <= TARGET_RATIO)}); the index writes no DynamoDB item, so the table sees the same writes",
        f"- the most throttled key range had {worst:.1%} of its write units refused (target at most "
        f"{TARGET_THROTTLED:.0%}: {mark(worst <= TARGET_THROTTLED)}); the index adds no key range",
    ]
    return "\n".join(lines)
