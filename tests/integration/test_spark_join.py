"""Spark (local mode), through the Glue job's join (``spark/enrich_job.py``: the Spark SQL form of
``tables.join_sql``), answers what DuckDB's form and the enrichment engine answer (which is what ``GET /lookup``
answers: tests/unit/enrichment/test_matches_lookup.py), for 100,000 addresses (IPv4, IPv6, IPv4-mapped IPv6, piece
edges, gaps and misses) over versions' Parquet tables built by the loader's recipe: one dataset from both shared files
(every 25th range left out), through the job's arguments and files, and two datasets in one query; and Spark reads
any text (addresses written every way ``inet_pton`` reads them, near misses, junk) as ``GET /lookup`` does; and as of
each row's own time (two versions and a rollback), 100,000 addresses as DuckDB's as-of form answers them; and the job
reads ALB, CloudFront and VPC flow logs as AWS writes them (gzip, headers), every line kept with its address.

One SparkSession for the module: ``local[2]``, 4 shuffle partitions, no UI, log4j quiet."""

from __future__ import annotations

import csv
import gzip
import ipaddress
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from fencepost.core.space.addresses import MAPPED_FIRST, TOP, V4, AddressError, format_address, parse_address
from fencepost.enrichment.sources import FileSource
from fencepost.enrichment.table import VersionTable
from fencepost.tables.address_sql import ip_hex
from fencepost.tables.dialects import DUCKDB, SPARK
from fencepost.tables.join_sql import Joined, enrichments_query
from spark.enrich_job import Dataset, enrich, main
from tests.support import SMALL_FILE, V6_FILE, read_tsv
from tests.support.tables import (
    HISTORY,
    build_version,
    connection,
    engine_answers,
    instants,
    live_at,
    mixed_addresses,
    shared_version,
    two_versions,
)

COUNT = 100_000
GEO = ("ip_start", "ip_end", "ip_network", "col3", "col4", "col5")
ASN = ("ip_start", "ip_network", "col3", "col5")
JAVA_17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")  # Spark 3.5 runs on Java 8, 11 or 17
Built = tuple[FileSource, VersionTable, Path]


# make test's JVM options (the JIT's first tier and one GC thread: 17% less of the driver's CPU over this file).
TEST_JVM = os.environ.get("TEST_JVM_OPTIONS", "")


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    quiet = tmp_path_factory.mktemp("log4j") / "log4j2.properties"
    quiet.write_text(
        "rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = console\nappender.console.type = Console\n"
        "appender.console.name = console\nappender.console.target = SYSTEM_ERR\n"
        "appender.console.layout.type = PatternLayout\nappender.console.layout.pattern = %p %c{1}: %m%n\n"
    )
    with pytest.MonkeyPatch.context() as patch:
        if JAVA_17.is_dir():
            patch.setenv("JAVA_HOME", str(JAVA_17))
        patch.setenv("PYSPARK_PYTHON", sys.executable)
        patch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
        session = (
            SparkSession.builder.master("local[2]")
            .appName("fencepost-test")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={quiet} {TEST_JVM}".strip())
            .getOrCreate()
        )
        session.sparkContext.setLogLevel("ERROR")
        yield session
        session.stop()


@pytest.fixture(scope="module")
def geo(tmp_path_factory: pytest.TempPathFactory) -> Built:
    source, table, path, _ = shared_version(tmp_path_factory)
    return source, table, path


@pytest.fixture(scope="module")
def asn(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """A second dataset over both families: the small IPv4 file, and two in three of the IPv6 file's ranges."""
    rows = read_tsv(SMALL_FILE) + [row for at, row in enumerate(read_tsv(V6_FILE)) if at % 3]
    source, table, path, _ = build_version(tmp_path_factory.mktemp("asn"), "asn", rows, ["col3"])
    return source, table, path


def _duckdb(addresses: list[str], tables: list[Joined]) -> list[tuple[Any, ...]]:
    con = connection()
    con.register("fp_addresses", pa.table({"n": range(len(addresses)), "ip": addresses}))
    query = enrichments_query(DUCKDB, "fp_addresses", "ip", tables)
    return con.sql(f"SELECT * EXCLUDE (n, ip) FROM ({query}) ORDER BY n").fetchall()


def _engine_data(built: Built, name: str, addresses: list[str]) -> list[tuple[Any, ...] | None]:
    """The engine's data for each address as the table holds it (``col3`` numeric), None where it has none."""
    source, table, _ = built
    return [
        (int(data["col3"]) if data["col3"] else None, *[data[column] for column in ("col4", "col5")])
        if (data := answer.get("data"))
        else None
        for answer in engine_answers(name, source, table, addresses, "data")
    ]


def _plain(row: Any) -> tuple[Any, ...]:
    return tuple(bytes(value) if isinstance(value, bytearray) else value for value in row)


def _hits(rows: list[tuple[Any, ...]], at: int, columns: slice) -> list[tuple[Any, ...] | None]:
    """Each row's ``columns`` where the piece's start (at ``at``) is there, else None."""
    return [row[columns] if row[at] is not None else None for row in rows]


@pytest.mark.usefixtures("spark")  # the job's session is the module's (``getOrCreate``)
def test_the_job_enriches_a_csv_of_100_000_addresses_as_duckdb_and_the_engine(geo: Built, tmp_path: Path) -> None:
    addresses = mixed_addresses(geo[1], COUNT)
    with (tmp_path / "rows.csv").open("w", newline="") as handle:
        csv.writer(handle).writerows([("n", "client", "ip"), *[(n, "c", ip) for n, ip in enumerate(addresses)]])
    output = tmp_path / "enriched"
    args = ["--input", str(tmp_path / "rows.csv"), "--format", "csv", "--address_column", "ip"]
    main(["enrich_job.py", *args, "--datasets", f"geo={geo[2]}", "--output", str(output)])
    read = connection().sql(f"SELECT * FROM read_parquet('{output}/*.parquet') ORDER BY n::INTEGER")
    assert read.columns == ["n", "client", "ip", "geo.ip_network", "geo.col3", "geo.col4", "geo.col5"]
    found = [row[3:] for row in read.fetchall()]
    expected = _duckdb(addresses, [Joined(f"read_parquet('{geo[2]}')", GEO, "geo.")])
    assert found == [row[2:] for row in expected]  # the job's columns: the network and the data
    engine = _engine_data(geo, "geo", addresses)
    assert _hits(expected, 0, slice(3, 6)) == engine
    assert sum(data is None for data in engine) > 5_000
    assert sum(data is not None for data in engine) > 50_000


def test_two_datasets_in_one_query_answer_100_000_addresses_as_duckdb_and_the_engine(
    spark: SparkSession, geo: Built, asn: Built, tmp_path: Path
) -> None:
    addresses = mixed_addresses(asn[1], COUNT, seed=20261129)
    pq.write_table(pa.table({"n": range(COUNT), "ip": addresses}), tmp_path / "rows.parquet")
    rows = spark.read.parquet(str(tmp_path / "rows.parquet"))
    datasets = [Dataset("geo", str(geo[2]), GEO), Dataset("asn", str(asn[2]), ASN)]
    found = [_plain(row[2:]) for row in enrich(spark, rows, "ip", datasets).orderBy("n").collect()]
    tables = [Joined(f"read_parquet('{each.path}')", each.columns or (), f"{each.name}.") for each in datasets]
    assert found == _duckdb(addresses, tables)
    assert _hits(found, 0, slice(3, 6)) == _engine_data(geo, "geo", addresses)
    asn_data = _engine_data(asn, "asn", addresses)
    assert _hits(found, len(GEO), slice(len(GEO) + 2, len(GEO) + 4)) == [
        data and (data[0], data[2]) for data in asn_data
    ]
    kinds = {"v4": 0, "v6": 0, "mapped": 0}
    for address, row in zip(addresses, found, strict=True):
        if row[0] is not None and row[len(GEO)] is not None:  # both datasets hold it
            kinds["mapped" if address.startswith("::ffff:") else "v6" if ":" in address else "v4"] += 1
    assert min(kinds.values()) > 20, kinds


def _texts(count: int) -> list[str]:
    """Addresses written every way ``inet_pton`` reads them, and texts that are not addresses (near misses among
    them: a leading zero, a trailing newline, one group too many, two ``::``)."""
    chosen = random.Random(20261129)
    texts = ["01.2.3.4", "1.2.3.4\n", "1:2:3:4:5:6:7::8", "1::2::3", ":::", " 1.2.3.4", "1.2.3.256", "::ffff:1.2.3.4"]
    while len(texts) < count:
        value = chosen.getrandbits(128)
        six, quad = ipaddress.IPv6Address(value), format_address(V4, value & TOP[V4])
        junk = "".join(chosen.choices("0123456789abcdefABCDEF:.x %/", k=chosen.randrange(47)))
        forms = [quad, six.compressed, six.exploded, six.compressed.upper(), "::ffff:" + quad, "::" + quad, junk]
        texts.append(chosen.choice([*forms, ":".join(six.exploded.split(":")[:6]) + ":" + quad]))
    return texts


def _lookup_hex(text: str) -> str | None:
    try:
        family, value = parse_address(text)
    except AddressError:
        return None
    return (MAPPED_FIRST + value if family == V4 else value).to_bytes(16, "big").hex()


def test_spark_reads_any_text_as_an_address_as_the_lookup_does(spark: SparkSession) -> None:
    texts = _texts(5_000)
    frame = spark.createDataFrame([(n, text) for n, text in enumerate(texts)], "n INT, t STRING")
    frame.createOrReplaceTempView("fp_texts_read")
    read = spark.sql(f"SELECT {ip_hex(SPARK, 't')} AS h FROM fp_texts_read ORDER BY n").collect()
    expected = [_lookup_hex(text) for text in texts]
    assert [row.h for row in read] == expected
    assert 300 < sum(each is None for each in expected) < 2_000  # texts that are no address, and addresses


def test_as_of_each_row_s_time_spark_answers_100_000_addresses_as_duckdb(spark: SparkSession, tmp_path: Path) -> None:
    (tmp_path / "versions").mkdir()
    table, _ = two_versions(tmp_path / "versions")
    addresses = mixed_addresses(table, COUNT, seed=20261130)
    at = instants(COUNT)
    selected = ("ip_start", "col3", "col4")
    pq.write_table(pa.table({"n": range(COUNT), "ip": addresses, "at": at}), tmp_path / "rows.parquet")
    spark.read.parquet(str(tmp_path / "rows.parquet")).createOrReplaceTempView("fp_rows_then")
    versions_read = spark.read.option("pathGlobFilter", "*.parquet").parquet(str(tmp_path / "versions"))
    versions_read.createOrReplaceTempView("fp_versions")  # its version=<n>/ folders: a version column
    history = spark.createDataFrame(HISTORY, "version INT, live_from TIMESTAMP_NTZ, live_until TIMESTAMP_NTZ")
    history.createOrReplaceTempView("fp_history")
    then = [Joined("fp_versions", selected, "asn.", "fp_history")]
    query = enrichments_query(SPARK, "fp_rows_then", "ip", then, "at")
    found = [_plain(row[3:]) for row in spark.sql(query).orderBy("n").collect()]

    con = connection()
    con.register("fp_rows", pa.table({"n": range(COUNT), "ip": addresses, "at": at}))
    periods = dict(zip(["version", "live_from", "live_until"], zip(*HISTORY, strict=True), strict=True))
    con.register("fp_history", pa.table(periods))
    versions = f"read_parquet('{tmp_path / 'versions'}/*/*.parquet', hive_partitioning = true)"
    query = enrichments_query(DUCKDB, "fp_rows", "ip", [Joined(versions, selected, "asn.", "fp_history")], "at")
    expected = con.sql(f'SELECT * EXCLUDE (n, ip, "at") FROM ({query}) ORDER BY n').fetchall()
    assert found == [_plain(row) for row in expected]
    assert [row[0] for row in found].count(None) == sum(live_at(instant) is None for instant in at) > 10_000
    assert {row[0] for row in found} == {None, 1, 2}


LOGS = Path(__file__).resolve().parents[1] / "data" / "aws_logs"
# Each log's sample (AWS's documented lines), its separator, the address field (0-based), and the job's column
LOG_FORMATS = {
    "alb": ("alb.log", " ", 3, "client_ip"),
    "cloudfront": ("cloudfront.log", "\t", 4, "c_ip"),
    "vpc": ("vpc_flow.log", " ", 3, "srcaddr"),
}


def _log_lines(format_: str, addresses: list[str]) -> tuple[list[str], list[str | None]]:
    """The sample's first line again and again, its address field each of ``addresses`` (ALB's with a port, an IPv6
    one bracketed one time in two), headers and comments kept; and the address each line holds (None for ``-``)."""
    sample, separator, at, _ = LOG_FORMATS[format_]
    lines = (LOGS / sample).read_text().splitlines()
    head = [line for line in lines if line.startswith(("#", "version "))]
    fields = next(line for line in lines if line not in head).split(separator)
    out, held = list(head), []
    for n, address in enumerate(addresses):
        field = address
        if format_ == "alb" and address != "-":
            field = f"[{address}]:{n}" if ":" in address and n % 2 else f"{address}:{n}"
        out.append(separator.join([*fields[:at], field, *fields[at + 1 :]]))
        held.append(None if address == "-" else address)
    return out, held


@pytest.mark.usefixtures("spark")
@pytest.mark.parametrize("format_", sorted(LOG_FORMATS))
def test_the_job_reads_each_aws_log_as_aws_writes_it(format_: str, geo: Built, tmp_path: Path) -> None:
    addresses = [*mixed_addresses(geo[1], 3_000, seed=sorted(LOG_FORMATS).index(format_)), "-", "-"]
    lines, held = _log_lines(format_, addresses)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "part.log.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    column = LOG_FORMATS[format_][3]
    output = tmp_path / "enriched"
    args = ["--input", str(tmp_path / "in"), "--format", format_, "--address_column", column]
    main(["enrich_job.py", *args, "--datasets", f"geo={geo[2]}", "--output", str(output)])

    read = connection().sql(f"SELECT * FROM read_parquet('{output}/*.parquet')").fetchall()
    names = connection().sql(f"SELECT * FROM read_parquet('{output}/*.parquet') LIMIT 0").columns
    by_line = {row[names.index("line")]: row for row in read}
    assert len(read) == len(addresses)  # every data line, no header or comment line
    data = [line for line in lines if not line.startswith(("#", "version "))]
    assert [by_line[line][names.index(column)] for line in data] == held
    expected = _duckdb([address or "" for address in held], [Joined(f"read_parquet('{geo[2]}')", GEO, "geo.")])
    found = [tuple(by_line[line][names.index(f"geo.{name}")] for name in GEO[2:]) for line in data]
    assert found == [row[2:] for row in expected]
    assert sum(row[0] is not None for row in found) > 500
