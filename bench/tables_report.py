"""Section 15 of ``make bench`` as Markdown, from ``bench.tables.measure``'s figures."""

from __future__ import annotations

import argparse
from typing import Any

MB = 1e6


def markdown(found: dict[str, Any], args: argparse.Namespace) -> str:
    files, duck = found["files"], found["duckdb"]
    out = [
        "### 15. Every dataset as a table: Parquet, and the join in DuckDB and Spark",
        "",
        "Fresh processes, the shared files built with the loader's recipe (`--ranges`: no service); "
        f"`--tables-addresses {args.tables_addresses}`, `--tables-naive-addresses {args.tables_naive_addresses}`, "
        f"`--tables-naive-seconds {args.tables_naive_seconds}`, "
        f"`--tables-spark-addresses {args.tables_spark_addresses}`, "
        f"`--tables-synthetic-rows {args.tables_synthetic_rows}`.",
        "",
        "| the version as | pieces | rows | MB | seconds |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, label in (("v4", "IPv4"), ("v6", "IPv6")):
        table = files[f"{name}_parquet"]
        out.append(
            f"| Parquet table, {label} (`write_table`, zstd) | {table['pieces']:,} | {table['rows']:,} "
            f"| {table['bytes'] / MB:.1f} | {table['seconds']:.2f} |"
        )
    pieces = files["v4_parquet"]["pieces"]
    for name, label in (("v4_csv", "CSV export, IPv4"), ("v4_mmdb", "MaxMind DB export, IPv4")):
        out.append(f"| {label} | {pieces:,} | | {files[name]['bytes'] / MB:.1f} | {files[name]['seconds']:.2f} |")
    rate = duck["addresses"] / duck["seconds"]
    naive = (
        f"done in {duck['naive_seconds']:.1f} s ({duck['naive_addresses'] / duck['naive_seconds']:,.0f} addresses/s)"
        if duck["naive_finished"]
        else f"**not done after {duck['naive_limit']} s** (stopped)"
    )
    out += [
        "",
        f"DuckDB ({duck['threads']} threads), {duck['addresses']:,} uniform IPv4 addresses (made in DuckDB as text) "
        f"joined with the IPv4 table, the bucketed query (`tables.join_sql.enrichment_query`): "
        f"**{duck['seconds']:.2f} s, {rate:,.0f} addresses/s**, {duck['matched']:,} in a piece; the process's peak "
        f"resident set {duck['peak_mb']:,.0f} MB ({duck['held_mb']:,.0f} MB before the join).",
        f"The naive join (`fp_ip(ip) BETWEEN ip_start AND ip_end`) of {duck['naive_addresses']:,} of them: {naive}.",
    ]
    if (memory := found["memory"]) is not None:
        out.append(
            f"The writer's memory: a synthetic version of {memory['pieces']:,} pieces ({memory['rows']:,} rows, "
            f"{memory['bytes'] / MB:.0f} MB) written in {memory['seconds']:.1f} s raised the resident set "
            f"(sampled every 20 ms) at most **{memory['rise_mb']:,.0f} MB** above what the process held with the "
            "version's arrays read."
        )
    if (spark := found["spark"]) is not None:
        out.append(
            f"Spark local mode (`local[2]`, 4 shuffle partitions), {spark['addresses']:,} uniform IPv4 addresses made "
            f"in Spark, joined with the same table by the Glue job's join (`spark/enrich_job.enrich`), counted: "
            f"**{spark['seconds']:.1f} s, {spark['addresses'] / spark['seconds']:,.0f} addresses/s** the second "
            f"run, {spark['first_seconds']:.1f} s the first (the query's code compiled), the session's start "
            f"{spark['start_seconds']:.1f} s."
        )
    return "\n".join(out) + "\n"
