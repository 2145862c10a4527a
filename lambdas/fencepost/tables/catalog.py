"""A dataset's three tables in the Glue Data Catalog, as Glue's ``TableInput`` (pure: the adapter is
``aws.glue_catalog``).

- ``<name>_versions``: every kept version whose Parquet file is written, partitioned by ``version`` with partition
  projection (an ``enum`` of those versions: no crawler, no partition to add), at ``_tables/<dataset>/``.
- ``<name>``: the live version alone, its location the live version's folder (``_tables/<dataset>/version=<n>/``).
- ``<name>_history``: when each of those versions was live (``version``, ``live_from``, ``live_until``: NULL while
  live), at ``_tables/<dataset>/_history/``: what a row is joined with to find the version live at its own time
  (``tables.join_sql``'s as-of form).

``<name>`` is ``glue_name(dataset)``: Glue and Athena names are lowercase letters, digits and ``_``, so a dataset's
name is lowercased and each ``.`` or ``-`` becomes ``_`` (``GeoIP-v2.lite`` is ``geoip_v2_lite``). Two datasets can
map to one name (``a-b`` and ``a_b``): each table says whose it is (its ``OWNER`` parameter), and a
dataset never takes over another's. A data column is declared under its own name when that name is already lowercase
letters, digits and ``_`` only. When some are not (a MaxMind DB file's ``country.iso_code``), a table whose files
share one column list reads its columns by position (``parquet.column.index.access``) and declares each under its name
in that alphabet (``country_iso_code``: ``glue_names``); ``<name>_versions`` over versions whose columns differ reads
by name, and leaves such a column out (the Parquet file keeps it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from fencepost.core.storage.objects import history_location, tables_location

VERSIONS_SUFFIX: Final = "_versions"
HISTORY_SUFFIX: Final = "_history"
HISTORY_COLUMNS: Final = (("version", "bigint"), ("live_from", "timestamp"), ("live_until", "timestamp"))
OWNER: Final = "fencepost.dataset"  # the table parameter naming the dataset a table is of
LIVE: Final = "fencepost.live_version"
PARTITION: Final = "version"
INDEX_ACCESS: Final = "parquet.column.index.access"  # the Parquet SerDe reads columns by position, not by name
# The table layout's types (tables.schema, pyarrow's names) as Glue's (Hive's) types
GLUE_TYPES: Final = {
    "int8": "tinyint",
    "int64": "bigint",
    "double": "double",
    "float64": "double",
    "binary": "binary",
    "string": "string",
}
_COLUMN: Final = re.compile(r"[a-z_][a-z0-9_]{0,254}")
_PARQUET: Final[dict[str, Any]] = {
    "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
    "OutputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
    "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"},
}


def glue_name(dataset: str) -> str:
    """The Glue table name of a dataset (``core.storage.keys.DATASET_NAME_PATTERN``): lowercase, ``.`` and ``-``
    as ``_``."""
    return dataset.lower().replace(".", "_").replace("-", "_")


def glue_columns(columns: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The Parquet file's columns (name, pyarrow type name) that Glue can declare, as Glue columns."""
    declared = []
    for name, kind in columns:
        if _COLUMN.fullmatch(name) is None or kind not in GLUE_TYPES:
            continue
        declared.append({"Name": name, "Type": GLUE_TYPES[kind]})
    return declared


def left_out(columns: Sequence[tuple[str, str]]) -> list[str]:
    """The columns ``glue_columns`` leaves out."""
    kept = {column["Name"] for column in glue_columns(columns)}
    return [name for name, _ in columns if name not in kept]


def glue_names(names: Sequence[str], reserved: Sequence[str] = ()) -> list[str]:
    """Each name in Glue's alphabet, unique among them and apart from ``reserved``: lowercased, any other character
    as ``_``, ``_`` before a leading digit, ``_2``, ``_3``... after a name already taken."""
    taken, named = set(reserved), []
    for name in names:
        base = re.sub(r"[^a-z0-9_]", "_", name.lower())[:250] or "_"
        base = "_" + base if base[0].isdigit() else base
        chosen, count = base, 1
        while chosen in taken:
            count += 1
            chosen = f"{base}_{count}"
        taken.add(chosen)
        named.append(chosen)
    return named


def storage(columns: Sequence[tuple[str, str]], location: str, *, by_position: bool) -> dict[str, Any]:
    """A table's storage: its columns by name (those Glue can name: ``glue_columns``), or, ``by_position`` when some
    cannot be named as they are and every file has these columns in this order, all of them by position under their
    ``glue_names``."""
    if not by_position or not left_out(columns) or any(kind not in GLUE_TYPES for _, kind in columns):
        declared = glue_columns(columns)
        return {"Columns": declared, "Location": location, **_PARQUET}
    names = glue_names([name for name, _ in columns], reserved=[PARTITION])
    declared = [{"Name": name, "Type": GLUE_TYPES[kind]} for name, (_, kind) in zip(names, columns, strict=True)]
    serde = {**_PARQUET["SerdeInfo"], "Parameters": {INDEX_ACCESS: "true"}}
    return {"Columns": declared, "Location": location, **_PARQUET, "SerdeInfo": serde}


def versions_table(
    dataset: str,
    bucket: str,
    columns: Sequence[tuple[str, str]],
    versions: Sequence[int],
    live: int | None,
    *,
    uniform: bool = True,
) -> dict[str, Any]:
    """``<name>_versions``: ``versions`` (written, kept) as the projected partitions of one table (``uniform``: each
    version's file has ``columns``, in order)."""
    location = f"s3://{bucket}/{tables_location(dataset)}"
    values = ",".join(str(version) for version in sorted(versions))
    return {
        "Name": glue_name(dataset) + VERSIONS_SUFFIX,
        "Description": f"Every kept version of dataset {dataset}, partitioned by version (Fencepost)",
        "TableType": "EXTERNAL_TABLE",
        "Parameters": {
            "classification": "parquet",
            "EXTERNAL": "TRUE",
            "projection.enabled": "true",
            f"projection.{PARTITION}.type": "enum",
            f"projection.{PARTITION}.values": values,
            "storage.location.template": f"{location}{PARTITION}=${{{PARTITION}}}/",
            OWNER: dataset,
            LIVE: "" if live is None else str(live),
        },
        "PartitionKeys": [{"Name": PARTITION, "Type": "int"}],
        # a data column named as the partition key stays in the file, left out here (a table's names are unique)
        "StorageDescriptor": _without_partition(storage(columns, location, by_position=uniform)),
    }


def _without_partition(described: dict[str, Any]) -> dict[str, Any]:
    """By name, a data column named as the partition is left out (by position, ``glue_names`` renamed it)."""
    described["Columns"] = [column for column in described["Columns"] if column["Name"] != PARTITION]
    return described


def live_table(dataset: str, bucket: str, columns: Sequence[tuple[str, str]], live: int) -> dict[str, Any]:
    """``<name>``: the live version's folder, what ``GET /lookup`` answers from."""
    location = f"s3://{bucket}/{tables_location(dataset)}{PARTITION}={live}/"
    return {
        "Name": glue_name(dataset),
        "Description": f"The live version of dataset {dataset} (Fencepost): version {live}",
        "TableType": "EXTERNAL_TABLE",
        "Parameters": {"classification": "parquet", "EXTERNAL": "TRUE", OWNER: dataset, LIVE: str(live)},
        "StorageDescriptor": storage(columns, location, by_position=True),
    }


def history_table(dataset: str, bucket: str) -> dict[str, Any]:
    """``<name>_history``: the periods each written, kept version was live (``HISTORY_COLUMNS``)."""
    return {
        "Name": glue_name(dataset) + HISTORY_SUFFIX,
        "Description": f"When each kept version of dataset {dataset} was live (Fencepost): live_until NULL while live",
        "TableType": "EXTERNAL_TABLE",
        "Parameters": {"classification": "parquet", "EXTERNAL": "TRUE", OWNER: dataset},
        "StorageDescriptor": {
            "Columns": [{"Name": name, "Type": kind} for name, kind in HISTORY_COLUMNS],
            "Location": f"s3://{bucket}/{history_location(dataset)}",
            **_PARQUET,
        },
    }
