"""Section 14 of ``make bench`` as Markdown, from ``bench.enrichment.measure``'s figures."""

from __future__ import annotations

import argparse
from typing import Any

JOIN_V4_TARGET = 5_000_000  # addresses a second, one core
JOIN_V6_TARGET = 1_000_000
LINES_TARGET = 1_000_000  # one address a line, end to end
ALB_TARGET = 250_000  # gzip ALB log lines, end to end
C_READER_RATIO = 10  # the join against maxminddb's C reader


def _verdict(met: bool) -> str:
    return "met" if met else "**missed**"


def markdown(found: dict[str, Any], args: argparse.Namespace) -> str:
    join, lines, alb, compare, memory = (found[k] for k in ("join", "lines", "alb", "compare", "memory"))
    count = join["addresses"]
    v4, v6 = count / join["v4_seconds"], count / join["v6_seconds"]
    parse = count / join["parse_seconds"]
    uniform, zipf = (lines[m]["seconds"] for m in ("uniform", "zipf"))
    out = [
        "### 14. Enrichment: files of addresses joined with a version at once",
        "",
        f"One core, fresh processes, the shared files built with the loader's recipe (`--ranges`: no service); "
        f"`--enrich-addresses {args.enrich_addresses}`, `--enrich-alb-lines {args.enrich_alb_lines}`, "
        f"`--enrich-alb-runs {args.enrich_alb_runs}`, "
        f"`--enrich-compare {args.enrich_compare}`, `--enrich-memory-mb {args.enrich_memory_mb}`.",
        "",
        "| step | pieces | addresses | seconds | addresses/s | target |",
        "|---|---:|---:|---:|---:|---|",
        f"| join alone, IPv4 (uniform over the space) | {join['v4_pieces']:,} | {count:,} | {join['v4_seconds']:.3f} "
        f"| {v4:,.0f} | at least {JOIN_V4_TARGET:,}: {_verdict(v4 >= JOIN_V4_TARGET)} |",
        f"| join alone, IPv6 (uniform over 2000::/3) | {join['v6_pieces']:,} | {count:,} | {join['v6_seconds']:.3f} "
        f"| {v6:,.0f} | at least {JOIN_V6_TARGET:,}: {_verdict(v6 >= JOIN_V6_TARGET)} |",
        f"| parsing the address texts (IPv4) | | {count:,} | {join['parse_seconds']:.3f} | {parse:,.0f} | |",
        "",
        "End to end (`enrichment.job.Job`: read, parse, join, answer, write CSV), `data` fields:",
        "",
        "| input | lines | MB in | seconds | lines/s | MB/s | target |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for model, seconds in (("uniform", uniform), ("zipf", zipf)):
        rate = lines["lines"] / seconds
        label = "every address anywhere" if model == "uniform" else "Zipf clients (s=1.2, 100,000 distinct)"
        out.append(
            f"| one address a line, {label} | {lines['lines']:,} | {lines[model]['megabytes']:.1f} | {seconds:.2f} "
            f"| {rate:,.0f} | {lines[model]['megabytes'] / seconds:.1f} | at least {LINES_TARGET:,}: "
            f"{_verdict(rate >= LINES_TARGET)} |"
        )
    out += _alb(alb)
    return "\n".join(out + _beside(compare, memory, count / join["v4_seconds"], lines["lines"] / uniform)) + "\n"


def _alb(alb: dict[str, Any]) -> list[str]:
    """The gzip ALB log's rows: each form's median of its runs (the CSV form over a fifth of the lines)."""
    rows = []
    forms = alb["forms"]
    for name, label in (
        ("log", "out as a gzip log (`--out-format log`, zlib level 1), read as bytes"),
        ("log_text", "out as a gzip log, zlib level 1, read as text (`Job(lean=False)`)"),
        ("csv", "out as gzip CSV (zlib level 4)"),
    ):
        lines = alb["csv_lines"] if name == "csv" else alb["lines"]
        seconds = forms[name]["seconds"]
        megabytes = alb["megabytes"] * lines / alb["lines"]  # the lines are alike
        rate = lines / seconds
        on_cpu = f"{lines / forms[name]['cpu_seconds']:,.0f} lines a CPU second"
        if name == "log":
            target = f"at least {ALB_TARGET:,}: {_verdict(rate >= ALB_TARGET)} ({on_cpu})"
        else:
            target = f"the bytes path {alb['lines'] / forms['log']['seconds'] / rate:.2f}x as fast ({on_cpu})"
        rows.append(
            f"| gzip ALB access log, Zipf clients, {label}, median of {alb['runs']} | {lines:,} | {megabytes:.1f} | "
            f"{seconds:.2f} | {rate:,.0f} | {megabytes / seconds:.1f} | {target} |"
        )
    return rows


def _beside(compare: dict[str, Any], memory: dict[str, Any], join_rate: float, end_to_end: float) -> list[str]:
    """The other ways to the same addresses, this run, and memory."""
    n = compare["addresses"]
    post, mmdb, duck = (n / compare[k] for k in ("post_seconds", "mmdb_seconds", "duckdb_seconds"))
    return [
        "",
        f"The same {n:,} addresses (uniform over IPv4) other ways, this run:",
        "",
        "| way | addresses/s | the join's end-to-end rate (uniform) / it |",
        "|---|---:|---:|",
        f"| `POST /lookup`, 100 a call, the lookup app in process over items in memory (no HTTP, no DynamoDB) "
        f"| {post:,.0f} | {end_to_end / post:.1f}x |",
        f"| `maxminddb` C reader ({compare['mmdb_extension']}) on the MaxMind DB export | {mmdb:,.0f} "
        f"| {end_to_end / mmdb:.1f}x |",
        f"| DuckDB `ip BETWEEN start AND end` on the CSV export (IPv4) | {duck:,.0f} | {end_to_end / duck:.1f}x |",
        "",
        f"- the join alone / the C reader: **{join_rate / mmdb:.0f}x** (goal at least {C_READER_RATIO}x: "
        f"{_verdict(join_rate / mmdb >= C_READER_RATIO)})",
        f"- memory: {memory['megabytes']:,} MB of input ({memory['rows']:,} rows) raised the resident set (sampled "
        f"every 20 ms) at most **{memory['rise_mb']:.0f} MB** above the {memory['held_mb']:.0f} MB held once the "
        f"version's arrays were read (target at most 300 MB: {_verdict(memory['rise_mb'] <= 300)})",
    ]
