"""A Glue 5.0 Spark job (and a plain pyspark script): every row of a prefix of logs or CSV, with the columns of one or
several datasets' versions for the address in one of its columns, by the bucketed join (``fencepost.tables``).

Arguments, as Glue passes them (``--NAME value``), the same to ``python spark/enrich_job.py``:

- ``--input``: the rows to enrich, a path or prefix (``s3://logs/alb/2026/11/``, ``samples/``);
- ``--format``: how they are written: ``csv`` (with a header line), ``json`` (one object a line), ``parquet``, or an
  AWS log as AWS writes it to S3 (gzip read as it comes): ``alb`` (access logs: the client's address as
  ``client_ip``, its ``time``), ``cloudfront`` (standard logs: ``c_ip``, ``date``, ``time``) or ``vpc`` (flow logs in
  the default format: ``srcaddr``, ``dstaddr``, ``start``), each line kept whole as ``line``, ``-`` read as no
  address (rows kept, answers NULL), header and comment lines left out;
- ``--address_column``: the column holding the address text;
- ``--datasets``: ``name=path`` pairs separated by commas, each path a version's table as ``write_table`` writes it
  (a file, or a folder of them: ``s3://bucket/tables/geo/version=12/``); the answer's columns are named
  ``name.column``: the piece's network and the dataset's data columns;
- ``--output``: where the enriched rows are written, as Parquet (replaced if it exists).

The join is the Spark SQL form of ``tables.join_sql.enrichments_query``, the query DuckDB and Athena run, spelled for
Spark by ``tables.dialects``: the job imports it rather than holding a copy, so the three engines cannot drift. On
Glue the package comes as a zip of ``lambdas/fencepost`` given to the job as ``--extra-py-files`` (it needs only the
standard library and numpy, which Glue 5.0 has); in a clone, this script finds it beside its folder. Without
``awsglue`` (plain pyspark, local mode) it reads its arguments with argparse and runs in a local SparkSession.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if importlib.util.find_spec("fencepost") is None:  # a clone's checkout: the package is beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lambdas"))

from fencepost.tables.dialects import SPARK
from fencepost.tables.join_sql import Joined, enrichments_query
from fencepost.tables.schema import LAYOUT_COLUMNS, NETWORK

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ARGUMENTS = ("input", "format", "address_column", "datasets", "output")
FORMATS = ("csv", "json", "parquet")
# AWS's logs: the separator, the lines to leave out (a regex), and the columns taken (name: field, 0-based), as
# fencepost.core.logs reads them: ALB's client:port is the 4th field (IPv6 without brackets, or bracketed)
LOGS = {
    "alb": (" ", None, {"time": 1, "client:port": 3}),
    "cloudfront": ("\t", "^#", {"date": 0, "time": 1, "c_ip": 4}),
    "vpc": (" ", "^version ", {"srcaddr": 3, "dstaddr": 4, "start": 10}),
}


@dataclass(frozen=True, slots=True)
class Dataset:
    """A version's table to join: its name (the answer's columns are ``name.column``), its path, and the columns
    taken (by default its network and its data columns)."""

    name: str
    path: str
    columns: tuple[str, ...] | None = None


def parse_datasets(text: str) -> list[Dataset]:
    pairs = [pair.partition("=") for pair in text.split(",") if pair.strip()]
    if not pairs or any(not name or not path for name, _, path in pairs):
        raise ValueError(f"--datasets wants name=path pairs separated by commas, not {text!r}")
    return [Dataset(name.strip(), path.strip()) for name, _, path in pairs]


def arguments(argv: Sequence[str]) -> dict[str, str]:
    """The job's arguments: Glue's resolver where ``awsglue`` is, else argparse with the same names."""
    try:
        from awsglue.utils import getResolvedOptions  # type: ignore[import-not-found]
    except ImportError:
        parser = argparse.ArgumentParser(description="Enrich rows of logs or CSV with datasets' tables.")
        for name in ARGUMENTS:
            parser.add_argument(f"--{name}", required=True)
        parser.add_argument("--JOB_NAME", default="fencepost-enrich")
        return dict(vars(parser.parse_args(list(argv[1:]))))
    return dict(getResolvedOptions(list(argv), ["JOB_NAME", *ARGUMENTS]))


def session(job_name: str, args: dict[str, str]) -> tuple[SparkSession, Callable[[], None]]:
    """The Spark session, and what ends the job (Glue's commit; nothing locally)."""
    try:
        from awsglue.context import GlueContext  # type: ignore[import-not-found]
        from awsglue.job import Job  # type: ignore[import-not-found]
    except ImportError:
        from pyspark.sql import SparkSession

        return SparkSession.builder.appName(job_name).getOrCreate(), lambda: None
    from pyspark.context import SparkContext

    glue = GlueContext(SparkContext.getOrCreate())
    job = Job(glue)
    job.init(job_name, args)
    return glue.spark_session, job.commit


def read_rows(spark: SparkSession, path: str, format_: str) -> DataFrame:
    if format_ in LOGS:
        return log_rows(spark, path, format_)
    if format_ not in FORMATS:
        raise ValueError(f"--format is one of {', '.join((*FORMATS, *LOGS))}, not {format_!r}")
    reader = spark.read.option("header", "true") if format_ == "csv" else spark.read
    return reader.format(format_).load(path)


def log_rows(spark: SparkSession, path: str, format_: str) -> DataFrame:
    """An AWS log's lines (``LOGS``), each with its named fields; ``-`` (no address) as NULL."""
    from pyspark.sql import functions as f

    separator, skipped, taken = LOGS[format_]
    lines = spark.read.text(path)
    if skipped is not None:
        lines = lines.where(~f.col("value").rlike(skipped))
    fields = f.split(f.col("value"), separator)
    columns = [f.col("value").alias("line")]
    for named, at in taken.items():
        field = f.element_at(fields, at + 1)
        if named == "client:port":  # the address is what comes before the last ':' (ALB: fencepost.core.logs.alb)
            field = f.regexp_extract(field, r"^\[?(.*?)\]?:[0-9]+$", 1)
        name = "client_ip" if named == "client:port" else named
        columns.append(f.when(field.isin("-", ""), None).otherwise(field).alias(name))
    return lines.where(f.length("value") > 0).select(*columns)


def enrich(spark: SparkSession, rows: DataFrame, column: str, datasets: Sequence[Dataset]) -> DataFrame:
    """``rows`` with each dataset's columns for the address in ``column`` (NULL where no piece holds it)."""
    rows.createOrReplaceTempView("fp_rows")
    tables = []
    for at, dataset in enumerate(datasets):
        table = spark.read.parquet(dataset.path)
        table.createOrReplaceTempView(f"fp_table_{at}")
        data = tuple(name for name in table.columns if name not in LAYOUT_COLUMNS)
        tables.append(Joined(f"fp_table_{at}", dataset.columns or (NETWORK, *data), f"{dataset.name}."))
    return spark.sql(enrichments_query(SPARK, "fp_rows", column, tables))


def main(argv: Sequence[str]) -> None:
    args = arguments(argv)
    spark, finish = session(args["JOB_NAME"], args)
    rows = read_rows(spark, args["input"], args["format"])
    enriched = enrich(spark, rows, args["address_column"], parse_datasets(args["datasets"]))
    enriched.write.mode("overwrite").parquet(args["output"])
    finish()


if __name__ == "__main__":
    main(sys.argv)
