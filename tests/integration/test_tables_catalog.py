"""Each version as a Parquet table in the Glue Data Catalog, through the real handlers (moto's S3, SQS and Glue,
DynamoDB Local): a load writes the version's file and registers ``<name>`` and ``<name>_versions``; DuckDB over the
file, with the join's SQL, answers as the lookup does; a rollback and a roll-forward move ``<name>``; the export route
answers ``format=parquet`` as it answers the other formats."""

from __future__ import annotations

import json
import logging
import urllib.request
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fencepost.core.storage.objects import history_key, parquet_key
from fencepost.handlers import admin
from fencepost.observability import TABLES_SERVICE
from tests.mmdb_files import MAPPED, SIX_TO_FOUR, TEREDO, mmdb
from tests.support.catalogs import TablesStack, with_tables
from tests.support.lookups import batch_lookup, request_export
from tests.support.stacks import Stack
from tests.support.tables import connection, joined

ROWS = """start,end,country,asn
1.0.0.0,1.0.0.255,AU,13335
2.0.0.0,2.0.0.255,FR,3215
2001:db8::,2001:db8::ffff,AU,64496
"""
PROBES = ["1.0.0.7", "2.0.0.255", "2001:db8::5", "::ffff:1.0.0.1", "9.9.9.9", "2001:db9::"]


@pytest.fixture
def tables(stack: Stack, moto_server: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> TablesStack:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return with_tables(stack, moto_server, monkeypatch, scratch)


def _location(tables: TablesStack, name: str) -> str:
    return str(tables.table(name)["StorageDescriptor"]["Location"])


def test_a_load_writes_the_parquet_file_registers_both_tables_and_duckdb_answers_as_the_lookup(
    tables: TablesStack, tmp_path: Path
) -> None:
    stack = tables.stack
    stack.put("geo/ranges.csv", ROWS)
    tables.drain()

    live, versions = tables.table("geo"), tables.table("geo_versions")
    assert live["StorageDescriptor"]["Location"] == f"s3://{stack.bucket}/_tables/geo/version=1/"
    parameters = versions["Parameters"]
    assert versions["StorageDescriptor"]["Location"] == f"s3://{stack.bucket}/_tables/geo/"
    assert parameters["projection.enabled"] == "true"
    assert (parameters["projection.version.type"], parameters["projection.version.values"]) == ("enum", "1")
    assert parameters["storage.location.template"] == f"s3://{stack.bucket}/_tables/geo/version=${{version}}/"
    assert versions["PartitionKeys"] == [{"Name": "version", "Type": "int"}]
    columns = [(c["Name"], c["Type"]) for c in live["StorageDescriptor"]["Columns"]]
    assert columns[:4] == [
        ("ip_bucket", "bigint"),
        ("ip_family", "tinyint"),
        ("ip_start", "binary"),
        ("ip_end", "binary"),
    ]
    assert columns[-2:] == [("country", "string"), ("asn", "string")]
    assert versions["StorageDescriptor"]["Columns"] == live["StorageDescriptor"]["Columns"]

    path = tables.parquet(parquet_key("geo", 1), tmp_path)
    assert pq.read_metadata(path).num_rows >= 3
    found = joined(connection(), PROBES, f"read_parquet('{path}')", ["country", "asn"])
    answers = batch_lookup(stack, "geo", PROBES)
    expected = [(a["data"]["country"], a["data"]["asn"]) if a.get("data") else (None, None) for a in answers]
    assert found == expected
    assert expected[:4] == [("AU", "13335"), ("FR", "3215"), ("AU", "64496"), ("AU", "13335")]


def test_emptying_the_folder_drops_the_dataset_s_tables_and_its_history_file(tables: TablesStack) -> None:
    stack = tables.stack
    stack.put("geo/ranges.csv", ROWS)
    tables.drain()
    names = ["geo", "geo_history", "geo_versions"]
    listed = tables.glue.get_tables(DatabaseName=tables.database)["TableList"]
    assert sorted(table["Name"] for table in listed) == names
    stack.s3.head_object(Bucket=stack.bucket, Key=history_key("geo"))

    stack.delete("geo/ranges.csv")  # the folder emptied: the dataset is retired
    tables.drain()
    assert stack.get("/lookup", ip="1.0.0.7", dataset="geo")[0] == 404
    assert tables.glue.get_tables(DatabaseName=tables.database)["TableList"] == []
    with pytest.raises(stack.s3.exceptions.ClientError, match="404"):
        stack.s3.head_object(Bucket=stack.bucket, Key=history_key("geo"))


def test_a_maxmind_db_version_answered_through_aliases_is_written_and_joined_as_the_lookup_answers(
    tables: TablesStack, tmp_path: Path
) -> None:
    stack = tables.stack
    networks = [
        ("1.0.0.0/24", {"country": {"iso_code": "AU"}}),
        ("81.2.69.0/23", {"country": {"iso_code": "GB"}}),
        ("2001:db8::/32", {"country": {"iso_code": "US"}}),
    ]
    stack.put("city/GeoLite2-City.mmdb", mmdb(networks, aliases=[SIX_TO_FOUR, TEREDO, MAPPED]))
    tables.drain()
    described = tables.table("city")["StorageDescriptor"]
    assert described["Location"] == f"s3://{stack.bucket}/_tables/city/version=1/"
    assert described["Columns"][-1] == {"Name": "country_iso_code", "Type": "string"}  # read by position
    assert described["SerdeInfo"]["Parameters"] == {"parquet.column.index.access": "true"}
    addresses = ["1.0.0.7", "81.2.68.9", "2002:0100:0007::1", "2002:5102:4501::", "2001:0:5102:4501::9"]
    addresses += ["::1.0.0.7", "::ffff:81.2.69.255", "2001:db8:1::", "2002:909:909::1", "2001:0:909:909::", "9.9.9.9"]
    answers = batch_lookup(stack, "city", addresses)
    expected = [(answer.get("data") or {}).get("country.iso_code") for answer in answers]
    assert expected == ["AU", "GB", "AU", "GB", "GB", "AU", "GB", "US", None, None, None]
    path = tables.parquet(parquet_key("city", 1), tmp_path)
    assert [row[0] for row in joined(connection(), addresses, f"read_parquet('{path}')", ["country.iso_code"])] == (
        expected
    )


def _rollback(dataset: str) -> None:
    assert admin.main(["rollback", dataset]) == 0


def test_a_rollback_and_a_roll_forward_move_the_live_table_and_an_old_message_never_does(
    tables: TablesStack,
) -> None:
    stack = tables.stack
    stack.put("geo/ranges.csv", ROWS)
    tables.drain()
    stack.put("geo/ranges.csv", ROWS.replace("FR", "DE"))
    tables.drain()
    assert _location(tables, "geo").endswith("/_tables/geo/version=2/")
    assert tables.table("geo_versions")["Parameters"]["projection.version.values"] == "1,2"

    _rollback("geo")
    tables.drain()
    assert _location(tables, "geo").endswith("/_tables/geo/version=1/")
    # a message for the version no longer live changes nothing
    stack.sqs.send_message(QueueUrl=tables.queue.url, MessageBody=json.dumps({"dataset": "geo", "version": 2}))
    tables.drain()
    assert _location(tables, "geo").endswith("/_tables/geo/version=1/")
    assert tables.table("geo")["Parameters"]["fencepost.live_version"] == "1"

    _rollback("geo")  # forward again
    tables.drain()
    assert _location(tables, "geo").endswith("/_tables/geo/version=2/")

    # A third version: the first is deleted, its Parquet file with it, and the versions' table no longer names it
    stack.put("geo/ranges.csv", ROWS.replace("FR", "JP"))
    tables.drain()
    left = stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_tables/geo/").get("Contents", [])
    folders = sorted({item["Key"].split("/")[2] for item in left})
    assert folders == ["_history", "version=2", "version=3"]
    assert tables.table("geo_versions")["Parameters"]["projection.version.values"] == "2,3"
    assert _location(tables, "geo").endswith("/_tables/geo/version=3/")
    # and the history names only those two, each with its periods live (version 2 twice: rolled back, then forward)
    body = stack.s3.get_object(Bucket=stack.bucket, Key="_tables/geo/_history/history.parquet")["Body"].read()
    periods = pq.read_table(pa.BufferReader(body)).to_pydict()
    assert periods["version"] == [2, 2, 3]
    assert periods["live_until"][-1] is None
    assert tables.table("geo_history")["StorageDescriptor"]["Location"].endswith("/_tables/geo/_history/")


def test_the_export_route_answers_parquet_as_it_answers_the_other_formats(tables: TablesStack) -> None:
    stack = tables.stack
    stack.put("geo/_settings.json", json.dumps({"exports": ["parquet"]}))
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()  # the loader's queues only: the tables function has not run yet

    first = request_export(stack, "geo", format="parquet")
    assert (first["statusCode"], first["headers"]["Retry-After"]) == (202, "5"), first["body"]
    assert json.loads(first["body"]) == {
        "dataset": "geo", "version": 1, "format": "parquet", "status": "WRITING", "retry_after": 5
    }  # fmt: skip
    assert request_export(stack, "geo", format="parquet")["statusCode"] == 202  # asked once, still writing
    tables.drain()
    ready = request_export(stack, "geo", format="parquet")
    assert ready["statusCode"] == 303, ready["body"]
    with urllib.request.urlopen(ready["headers"]["Location"], timeout=30) as answer:
        body = answer.read()
    assert body[:4] == b"PAR1"
    assert body[-4:] == b"PAR1"
    markers = stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_exports/").get("KeyCount", 0)
    assert markers == 0  # the marker is gone once written


def test_a_bad_message_is_dropped_with_a_clear_log(tables: TablesStack, caplog: pytest.LogCaptureFixture) -> None:
    stack = tables.stack
    # The function's Powertools logger writes to the stream it was made with and does not propagate, at the level an
    # earlier wiring in this process may have set (a local stack's ERROR): listen to it, at WARNING
    logger = logging.getLogger(TABLES_SERVICE)
    caplog.set_level(logging.WARNING, logger=TABLES_SERVICE)
    logger.addHandler(caplog.handler)
    try:
        stack.sqs.send_message(QueueUrl=tables.queue.url, MessageBody='{"dataset": "../x", "version": 1}')
        tables.drain()
    finally:
        logger.removeHandler(caplog.handler)
    assert "a tables message was dropped: invalid dataset name '../x'" in caplog.text
    assert stack.sqs.receive_message(QueueUrl=tables.queue.dlq_url).get("Messages", []) == []
