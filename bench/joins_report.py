"""Section 5b of ``make bench`` as Markdown (``bench.joins`` measures it), and the section written into a saved
report when it runs alone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.report import mark

PLAIN, JOINED, FLOOR = "without a join", "joined to as-names", "floor: bare low-level `query`"


@dataclass(frozen=True)
class Timing:
    p50: float  # seconds
    p99: float
    calls: dict[str, float]  # DynamoDB calls per lookup, by operation
    gets: float  # S3 GETs per lookup


@dataclass(frozen=True)
class Joins:
    lookups: int
    rows: int
    keys: int
    object_bytes: int
    decode_seconds: float
    traced_bytes: int
    estimated_bytes: int
    local: dict[str, Timing]  # DynamoDB Local: FLOOR, PLAIN, JOINED
    memory: dict[str, Timing]  # in-memory store: PLAIN, JOINED


def _row(name: str, timing: Timing) -> str:
    queries, gets = timing.calls.get("Query", 0.0), timing.calls.get("GetItem", 0.0)
    figures = f"{timing.p50 * 1e6:,.0f} | {timing.p99 * 1e6:,.0f} | {queries:.2f} | {gets:.2f} | {timing.gets:.2f}"
    return f"| {name} | {figures} |"


def section(joins: Joins) -> str:
    local, memory = joins.local, joins.memory
    ratio = local[JOINED].p50 / local[FLOOR].p50
    plain_ratio = local[PLAIN].p50 / local[FLOOR].p50
    added = {op: n - local[PLAIN].calls.get(op, 0.0) for op, n in local[JOINED].calls.items()}
    extra = sum(added.values()) + local[JOINED].gets - local[PLAIN].gets
    warm = memory[JOINED].p50 * 1e6
    lines = [
        "### 5b. A keyed join in a lookup",
        "",
        f"{joins.lookups:,} warm `GET /lookup` of random addresses of `asn-db-ip2asn-v4-subset-2019.tsv` "
        f"({joins.rows:,} rows), without a join and joined to `as-names` ({joins.keys:,} AS numbers, names of about "
        "25 characters and a country), calls interleaved, the range cache off (every lookup makes its Query).",
        "",
        "| store, lookup | p50 us | p99 us | Queries / lookup | GetItems / lookup | S3 GETs / lookup |",
        "|---|---:|---:|---:|---:|---:|",
        *(_row(f"DynamoDB Local, {name}", timing) for name, timing in local.items()),
        *(_row(f"in memory, {name}", timing) for name, timing in memory.items()),
        "",
        f"- joined / not joined, p50: **{local[JOINED].p50 / local[PLAIN].p50:.3f}x** on DynamoDB Local, "
        f"**{memory[JOINED].p50 / memory[PLAIN].p50:.2f}x** in memory "
        f"(+{(memory[JOINED].p50 - memory[PLAIN].p50) * 1e6:.0f} us a lookup)",
        f"- DynamoDB calls and S3 GETs the join adds to a warm lookup: **{extra:g}** (target 0: {mark(extra == 0)})",
        f"- joined handler p50 / floor p50: **{ratio:.2f}x**, not joined {plain_ratio:.2f}x "
        f"(target at most 1.10x: {mark(ratio <= 1.10)}); the join's own share: "
        f"{(local[JOINED].p50 - local[PLAIN].p50) / local[FLOOR].p50:+.1%} of the floor (the ratio is the handler's "
        "fixed cost over this run's Query latency, as in section 2)",
        f"- joined warm call in memory: **{warm:.0f} us** median (target at most 100 us: {mark(warm <= 100)})",
        f"- the table: {joins.object_bytes / 1e6:.1f} MB stored (gzip'd JSON), decoded in "
        f"**{joins.decode_seconds * 1e3:.0f} ms** (once per container and version); **{joins.traced_bytes / 1e6:.1f} "
        f"MB** held once decoded (tracemalloc), {joins.estimated_bytes / 1e6:.1f} MB as `KeyedTable.memory_bytes()` "
        f"estimates it ({joins.estimated_bytes / joins.traced_bytes:.2f}x, what `KEYED_CACHE_BYTES` budgets)",
    ]
    return "\n".join(lines)


def write_into(path: Path, text: str) -> None:
    """Put the section into a saved report: in place of its previous run, else after section 5."""
    report = path.read_text() if path.exists() else ""
    head = text.splitlines()[0]
    parts = report.split("\n### ")
    kept = [part for part in parts if not ("### " + part).startswith(head)]
    at = next((i + 1 for i, part in enumerate(kept) if part.startswith("5. ")), len(kept))
    kept.insert(at, text.removeprefix("### "))
    path.write_text("\n### ".join(kept) if report else text + "\n")
