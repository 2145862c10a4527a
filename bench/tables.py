"""``python -m bench.tables``: every dataset as a table (section 15 of ``make bench``).

Each figure comes from a fresh process (``--child``), the versions built from the shared files with the loader's
recipe (``--ranges``, no service):

- the Parquet table of the IPv4 and the IPv6 version (``tables.parquet_table.write_table``): seconds and bytes,
  beside the CSV export (``core.versions.exports.csv_lines``) and the MaxMind DB export of the same version;
- DuckDB (every core), ``--tables-addresses`` uniform IPv4 addresses made in DuckDB as text, joined with the IPv4
  table by the bucketed query (``tables.join_sql.enrichment_query``): addresses a second and the process's peak
  resident set; then the naive join (``fp_ip(ip) BETWEEN ip_start AND ip_end``) over ``--tables-naive-addresses``
  of them, stopped after ``--tables-naive-seconds`` if it has not finished (DuckDB's interrupt);
- the writer's memory: a synthetic version of ``--tables-synthetic-rows`` ranges written as Parquet, the resident
  set sampled every 20 ms while it is written, above what the process held once the version's arrays were read;
- Spark 3.5 in local mode (``local[2]``), ``--tables-spark-addresses`` uniform IPv4 addresses made in Spark as text,
  joined with the same table by the Glue job's join (``spark/enrich_job.enrich``: the query's Spark SQL form), run
  twice in one session (the first run compiles the query's code): the session's start and each run's seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _version(path: Path) -> Any:
    from fencepost.enrichment.sources import FileSource

    source = FileSource("geo", [path])
    return source.table(source.info(source.live("geo")))


def child_files(v4_file: Path, v6_file: Path, folder: Path) -> dict[str, Any]:
    """The Parquet tables of both versions, and the IPv4 version's CSV and MaxMind DB exports: seconds and bytes."""
    from fencepost.core.space.addresses import V4
    from fencepost.core.versions.exports import csv_lines
    from fencepost.core.versions.mmdb_export import mmdb_bytes
    from fencepost.loading.local_files import build_files
    from fencepost.tables.parquet_table import write_table

    out: dict[str, Any] = {}
    for name, path in (("v4", v4_file), ("v6", v6_file)):
        table, target = _version(path), folder / f"{name}.parquet"
        started = time.perf_counter()
        written = write_table(table, target)
        out[f"{name}_parquet"] = {
            "column": table.columns[0],
            "seconds": time.perf_counter() - started,
            "bytes": target.stat().st_size,
            "rows": written.rows,
            "pieces": written.pieces,
        }
    built = build_files([v4_file], "geo", 1)
    families, columns = built.flat.families, built.read.columns
    pieces = [(V4, start, end, families[V4].values[source]) for start, end, source in built.flat.pieces[V4]]
    started = time.perf_counter()
    text = "".join(csv_lines(columns, pieces, raw=True)).encode()
    out["v4_csv"] = {"seconds": time.perf_counter() - started, "bytes": len(text)}
    started = time.perf_counter()
    mmdb = mmdb_bytes("geo", columns, pieces, has_ipv6=False, build_epoch=int(time.time()))
    out["v4_mmdb"] = {"seconds": time.perf_counter() - started, "bytes": len(mmdb)}
    return out


def child_memory(rows: int, folder: Path) -> dict[str, Any]:
    """The resident set's rise while a synthetic version of ``rows`` ranges is written as Parquet (sampled every
    20 ms), above what the process held with the version's arrays read: the writer streams, so it stays flat."""
    import gc

    from bench import synthetic
    from bench.enrichment import _rss_mb
    from fencepost.tables.parquet_table import write_table

    version = _version(synthetic.write(folder / f"synthetic-{rows}.tsv", rows))
    gc.collect()
    before, peak, done = _rss_mb(), [0.0], threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _rss_mb())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    written = write_table(version, folder / "synthetic.parquet")
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    size = (folder / "synthetic.parquet").stat().st_size
    rise = max(0.0, peak[0] - before)
    return {"pieces": written.pieces, "rows": written.rows, "seconds": seconds, "bytes": size, "rise_mb": rise}


def _interrupted_after(connection: Any, seconds: float, sql: str) -> tuple[float, bool]:
    """``sql`` run on ``connection``, interrupted after ``seconds``: (seconds taken, finished)."""
    import duckdb

    timer = threading.Timer(seconds, connection.interrupt)
    started = time.perf_counter()
    timer.start()
    try:
        connection.execute(sql).fetchall()
        finished = True
    except duckdb.InterruptException:
        finished = False
    finally:
        timer.cancel()
    return time.perf_counter() - started, finished


def child_duckdb(table: Path, column: str, count: int, naive_count: int, naive_seconds: int) -> dict[str, Any]:
    """The bucketed join of ``count`` uniform IPv4 addresses with the IPv4 table (written by ``child_files``) in
    DuckDB, and the naive one of ``naive_count``; the process reads nothing else, so its peak is DuckDB's."""
    import duckdb

    from fencepost.tables.join_sql import MACROS, enrichment_query

    connection = duckdb.connect()
    connection.execute(MACROS)
    octets = ", ".join(f"((r >> {shift}) & 255)::VARCHAR" for shift in (24, 16, 8, 0))
    connection.execute(
        f"CREATE TABLE logs AS SELECT concat_ws('.', {octets}) AS ip "
        f"FROM (SELECT (random() * 4294967296)::UBIGINT AS r FROM range({count}))"
    )
    held = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    relation = f"read_parquet('{table}')"
    query = enrichment_query("logs", "ip", relation, [column], prefix="geo.")
    started = time.perf_counter()
    found = connection.execute(f'SELECT count(*), count("geo.{column}") FROM ({query})').fetchone()
    seconds = time.perf_counter() - started
    if found is None or found[0] != count:
        raise RuntimeError(f"the join gave {found} rows for {count} addresses")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    connection.execute(f"CREATE TABLE few AS SELECT * FROM logs LIMIT {naive_count}")
    naive = f"SELECT count(*) FROM few AS a JOIN {relation} AS t ON fp_ip(a.ip) BETWEEN t.ip_start AND t.ip_end"
    naive_taken, naive_done = _interrupted_after(connection, naive_seconds, naive)
    return {
        "addresses": count,
        "matched": found[1],
        "seconds": seconds,
        "held_mb": held,
        "peak_mb": peak,
        "threads": connection.execute("SELECT current_setting('threads')").fetchone()[0],  # type: ignore[index]
        "naive_addresses": naive_count,
        "naive_seconds": naive_taken,
        "naive_finished": naive_done,
        "naive_limit": naive_seconds,
    }


def child_spark(table: Path, count: int) -> dict[str, Any]:
    """The Glue job's join of ``count`` uniform IPv4 addresses with the IPv4 table, in local mode, twice."""
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as f

    from spark.enrich_job import Dataset, enrich

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    started = time.perf_counter()
    builder = SparkSession.builder.master("local[2]").appName("fencepost-bench")
    for key, value in (("spark.ui.enabled", "false"), ("spark.sql.shuffle.partitions", "4")):
        builder = builder.config(key, value)
    spark = builder.config("spark.ui.showConsoleProgress", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    start_seconds = time.perf_counter() - started
    number = (f.rand(seed=15) * 4294967296).cast("long")
    octets = [f.shiftright(number, shift).bitwiseAND(255).cast("string") for shift in (24, 16, 8, 0)]
    rows = spark.range(count).select(f.concat_ws(".", *octets).alias("ip"))
    runs = []
    for _ in range(2):
        began = time.perf_counter()
        found = enrich(spark, rows, "ip", [Dataset("geo", str(table))]).count()
        runs.append(time.perf_counter() - began)
        if found != count:
            raise RuntimeError(f"Spark's join gave {found} rows for {count} addresses")
    spark.stop()
    return {"addresses": count, "start_seconds": start_seconds, "first_seconds": runs[0], "seconds": runs[1]}


CHILDREN = {"files": child_files, "duckdb": child_duckdb, "spark": child_spark, "memory": child_memory}


def _run(kind: str, *args: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench.tables", "--child", kind, *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "lambdas"), str(ROOT)])}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"bench.tables {kind} failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from tests.support import V4_FILE, V6_FILE

    with tempfile.TemporaryDirectory(prefix="fencepost-tables-") as folder:
        files = _run("files", str(V4_FILE), str(V6_FILE), folder)
        counts = (args.tables_addresses, args.tables_naive_addresses, args.tables_naive_seconds)
        table, column = str(Path(folder) / "v4.parquet"), files["v4_parquet"]["column"]
        duck = _run("duckdb", table, column, *map(str, counts))
        spark = _run("spark", table, str(args.tables_spark_addresses)) if args.tables_spark_addresses else None
        rows = args.tables_synthetic_rows
        memory = _run("memory", str(rows), str(Path(folder) / "synthetic")) if rows else None
    return {"files": files, "duckdb": duck, "spark": spark, "memory": memory}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables-addresses", type=int, default=10_000_000, help="addresses joined in DuckDB")
    parser.add_argument("--tables-naive-addresses", type=int, default=100_000, help="addresses of the naive join")
    parser.add_argument("--tables-naive-seconds", type=int, default=300, help="the naive join's time limit")
    parser.add_argument(
        "--tables-spark-addresses", type=int, default=1_000_000, help="addresses joined in Spark (0: none)"
    )
    parser.add_argument(
        "--tables-synthetic-rows", type=int, default=4_000_000, help="ranges of the version written for memory"
    )


def section(args: argparse.Namespace) -> str:
    from bench.tables_report import markdown

    return markdown(measure(args), args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tables", description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", nargs="+", metavar="ARG", help="one measurement, in this process (JSON out)")
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        converted = [Path(a) if "/" in a else int(a) if a.isdigit() else a for a in rest]
        print(json.dumps(CHILDREN[kind](*converted)))  # type: ignore[operator]
        return 0
    print(section(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
