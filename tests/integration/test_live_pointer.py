"""The live pointer on DynamoDB Local: what lookups read instead of the dataset record, its size against a record
with 100 problems, and the record it falls back to on a table written before pointers existed."""

from __future__ import annotations

from typing import Any

from fencepost.aws.dynamo import Tables
from fencepost.aws.dynamo.codec import encode
from fencepost.aws.dynamo.serving import POINTER_PROJECTION, pointer_item, pointer_key, record_key
from fencepost.core.storage.items import item_bytes
from fencepost.core.storage.keys import DATASETS_PK, dataset_id
from fencepost.model import (
    RECORD_PROBLEMS,
    BuildRecord,
    BuildState,
    DatasetRecord,
    LivePointer,
    LoadState,
    LoadStatus,
    ObjectRef,
    Phase,
    Problem,
)

REASON = "start '10.0.{i}.300' is not an IPv4 or IPv6 address (IPv4 octets are decimal without leading zeros)"


def _busy_record(name: str) -> DatasetRecord:
    """A record as a failed load leaves it: the live version's objects, and the first 100 problems of the load."""
    objects = [ObjectRef(f"{name}/part-{i:03d}.csv.gz", f"{i:032x}", 50_000_000 + i) for i in range(5)]
    problems = [Problem(f"{name}/part-004.csv.gz", 1000 + i, REASON.format(i=i)) for i in range(RECORD_PROBLEMS)]
    load = LoadState(8, Phase.FAILED, 5_000_000, 0, problems, f"_reports/{name}/8.json")
    return DatasetRecord(
        name=name,
        live=7,
        status=LoadStatus.FAILED,
        ranges=4_900_000,
        loaded_at="2026-11-21T10:00:00+00:00",
        objects=objects,
        load=load,
        previous=6,
        live_since=1_800_000_000.5,
        heartbeat=1_800_000_100.0,
        requests=8,
        planned=8,
        builds=8,
    )


def _read_units(client: Any, **request: Any) -> float:
    response = client.get_item(ReturnConsumedCapacity="TOTAL", **request)
    return float(response["ConsumedCapacity"]["CapacityUnits"])


def test_a_lookup_reads_a_pointer_of_a_few_dozen_bytes_instead_of_the_record(ddb_table: tuple[Any, str]) -> None:
    client, table = ddb_table
    tables = Tables.connect(client, table)
    record = _busy_record("geo")
    tables.datasets.put(record)
    tables.table.put(pointer_item("geo", LivePointer("geo", 7, record.live_since)))
    # The pointer says what the record says, and lookups read the pointer
    assert tables.get_live("geo") == LivePointer("geo", 7, 1_800_000_000.5)
    record_size = item_bytes(encode(record, PK=DATASETS_PK, SK=dataset_id("geo")))
    pointer_size = item_bytes(pointer_item("geo", LivePointer("geo", 7, record.live_since)))
    print(f"\nlive pointer item: {pointer_size} bytes; dataset record with 100 problems: {record_size} bytes")
    assert pointer_size < 64
    assert record_size > 10_000
    # What each read costs: the record read as listings read it (strongly consistent), the pointer as lookups do
    names = {"#version": "version", "#live_since": "live_since"}
    units = {
        "record, strongly consistent": _read_units(client, TableName=table, Key=record_key("geo"), ConsistentRead=True),
        "record, eventually consistent": _read_units(client, TableName=table, Key=record_key("geo")),
        "pointer, eventually consistent": _read_units(
            client,
            TableName=table,
            Key=pointer_key("geo"),
            ProjectionExpression=POINTER_PROJECTION,
            ExpressionAttributeNames=names,
        ),
    }
    print(f"read units: {units}")
    assert units["pointer, eventually consistent"] == 0.5
    assert units["record, strongly consistent"] >= 4


def test_a_table_written_before_pointers_existed_is_served_from_its_records(ddb_table: tuple[Any, str]) -> None:
    # Given a table with records only (as the loader wrote them before pointers existed)
    client, table = ddb_table
    tables = Tables.connect(client, table)
    tables.datasets.put(DatasetRecord(name="geo", live=3, status=LoadStatus.READY, ranges=1))
    tables.datasets.put(DatasetRecord(name="gone", retired=True, status=LoadStatus.READY))
    assert client.get_item(TableName=table, Key=pointer_key("geo")).get("Item") is None
    # Then lookups read the live version from the record
    assert tables.get_live("geo") == LivePointer("geo", 3, None)
    assert tables.get_live("gone") is None
    assert tables.get_live("never") is None
    # And the next switch writes the pointer, from then on read instead
    tables.builds.put(BuildRecord("geo", 4, state=BuildState.FINALIZING))
    tables.datasets.switch_live("geo", 4, ranges=1, objects=[], loaded_at="t", now=50.0)
    assert client.get_item(TableName=table, Key=pointer_key("geo"))["Item"]["version"] == {"N": "4"}
    assert tables.get_live("geo") == LivePointer("geo", 4, 50.0)
    # And retiring leaves a pointer that says nothing is served (no fallback read of the record)
    request = tables.datasets.note_request("geo", 60.0)
    record = tables.datasets.start_build("geo", request, 60.0)
    tables.datasets.retire("geo", record.builds, 61.0)
    assert "version" not in client.get_item(TableName=table, Key=pointer_key("geo"))["Item"]
    assert tables.get_live("geo") is None
