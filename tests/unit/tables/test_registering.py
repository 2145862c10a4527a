"""The tables function's work against in-memory fakes: the catalog always ends at the dataset's state (the live
version, the written kept versions), another dataset's table is never taken over, a file another delivery holds is
retried, and a version without its table file is logged, not raised."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from fencepost.core.storage.objects import parquet_columns_key
from fencepost.core.versions.exports import WRITING, Marker
from fencepost.core.versions.history import Event, Timeline
from fencepost.model import DatasetRecord, VersionInfo
from fencepost.tables.catalog import OWNER
from fencepost.tables.registering import Busy, TablesPublisher

COLUMNS = [["ip_bucket", "int64"], ["country", "string"]]


class Objects:
    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}
        self.markers: dict[str, Marker] = {}

    def read(self, key: str) -> bytes | None:
        return self.store.get(key)

    def exists(self, key: str) -> bool:
        return key in self.store

    def upload(self, key: str, path: Path, content_type: str) -> None:
        self.store[key] = path.read_bytes()

    def put_bytes(self, key: str, body: bytes) -> None:
        self.store[key] = body

    def marker(self, key: str) -> Marker | None:
        return self.markers.get(key)

    def claim(self, key: str, state: str, *, replacing: str | None) -> bool:
        held = self.markers.get(key)
        if (held.etag if held else None) != replacing:
            return False
        self.markers[key] = Marker(state, f"e{len(self.markers)}", 1000.0)
        return True

    def delete_files(self, keys: list[str]) -> None:
        for key in keys:
            self.markers.pop(key, None)
            self.store.pop(key, None)


class Catalog:
    def __init__(self) -> None:
        self.tables: dict[str, dict[str, Any]] = {}

    def parameters(self, name: str) -> dict[str, str] | None:
        table = self.tables.get(name)
        return None if table is None else dict(table["Parameters"])

    def put(self, table: dict[str, Any]) -> None:
        self.tables[table["Name"]] = table

    def delete(self, name: str) -> None:
        self.tables.pop(name, None)


class Datasets:
    def __init__(self, record: DatasetRecord, timeline: Timeline) -> None:
        self.record, self.history = record, timeline

    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        return self.record if name == self.record.name else None

    def timeline(self, name: str, *, consistent: bool = False) -> Timeline:
        return self.history


class Versions:
    def get(self, dataset: str, version: int) -> VersionInfo | None:
        return None  # no version's header: nothing is written in these tests


def _publisher(record: DatasetRecord, timeline: Timeline, tmp_path: Path) -> tuple[TablesPublisher, Objects, Catalog]:
    objects, catalog = Objects(), Catalog()
    publisher = TablesPublisher(
        datasets=Datasets(record, timeline),
        versions=Versions(),
        objects=objects,
        catalog=catalog,
        log=logging.getLogger("tables-test"),
        bucket="b",
        scratch=tmp_path,
        clock=lambda: 1000.0,
    )
    return publisher, objects, catalog


def _written(objects: Objects, *versions: int) -> None:
    for version in versions:
        objects.put_bytes(parquet_columns_key("geo", version), json.dumps(COLUMNS).encode())


HISTORY = Timeline([Event(1.0, 1, gone=True), Event(2.0, 2), Event(3.0, 3)])


def test_any_message_leaves_the_catalog_at_the_live_version_and_the_written_kept_ones(tmp_path: Path) -> None:
    publisher, objects, catalog = _publisher(DatasetRecord(name="geo", live=2, previous=3), HISTORY, tmp_path)
    _written(objects, 1, 2, 3)
    for version in (3, 1, 2):  # a message for the newer version, one for a deleted one, then the live one
        publisher.on_message(json.dumps({"dataset": "geo", "version": version}))
        assert catalog.tables["geo"]["StorageDescriptor"]["Location"] == "s3://b/_tables/geo/version=2/"
        assert catalog.tables["geo_versions"]["Parameters"]["projection.version.values"] == "2,3"  # 1 is gone
    declared = [column["Name"] for column in catalog.tables["geo"]["StorageDescriptor"]["Columns"]]
    assert declared == ["ip_bucket", "country"]


def test_a_table_of_another_dataset_is_never_taken_over(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    publisher, objects, catalog = _publisher(DatasetRecord(name="geo", live=2), HISTORY, tmp_path)
    _written(objects, 2)
    catalog.tables["geo"] = {"Name": "geo", "Parameters": {OWNER: "GEO"}}
    publisher.on_message('{"dataset": "geo", "version": 2}')
    assert catalog.tables["geo"]["Parameters"] == {OWNER: "GEO"}
    assert "geo_versions" not in catalog.tables
    assert "Glue table geo is dataset 'GEO''s" in caplog.text


def test_a_file_another_delivery_is_writing_is_retried_later(tmp_path: Path) -> None:
    publisher, objects, catalog = _publisher(DatasetRecord(name="geo", live=2), HISTORY, tmp_path)
    objects.markers["_exports/geo/2.parquet.building"] = Marker(WRITING, "other", 990.0)
    with pytest.raises(Busy, match="being written by another delivery"):
        publisher.on_message('{"dataset": "geo", "version": 2}')
    assert catalog.tables == {}


def test_a_version_without_its_table_file_is_logged_and_its_marker_released(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    publisher, objects, catalog = _publisher(DatasetRecord(name="geo", live=2), HISTORY, tmp_path)
    publisher.on_message('{"dataset": "geo", "version": 2}')
    assert "a version without its table file: not written" in caplog.text
    assert objects.markers == {}
    assert catalog.tables == {}  # nothing written: nothing to register


def test_a_dataset_not_served_registers_nothing(tmp_path: Path) -> None:
    publisher, _, catalog = _publisher(DatasetRecord(name="geo", live=None), Timeline([]), tmp_path)
    publisher.on_message('{"dataset": "geo", "version": 1}')
    assert catalog.tables == {}


def test_a_retired_dataset_has_its_tables_and_history_dropped_and_another_dataset_s_left(tmp_path: Path) -> None:
    publisher, objects, catalog = _publisher(DatasetRecord(name="geo", live=2), HISTORY, tmp_path)
    _written(objects, 2)
    publisher.on_message('{"dataset": "geo", "version": 2}')
    assert sorted(catalog.tables) == ["geo", "geo_history", "geo_versions"]
    assert "_tables/geo/_history/history.parquet" in objects.store
    catalog.tables["unrelated"] = {"Name": "unrelated", "Parameters": {OWNER: "other"}}
    datasets = publisher.datasets
    assert isinstance(datasets, Datasets)
    datasets.record = DatasetRecord(name="geo", live=None, retired=True)  # its folder emptied
    publisher.on_message('{"dataset": "geo", "version": 2}')
    assert sorted(catalog.tables) == ["unrelated"]
    assert "_tables/geo/_history/history.parquet" not in objects.store
    # A retired dataset whose name another dataset's tables hold: nothing of theirs is dropped
    catalog.tables["geo"] = {"Name": "geo", "Parameters": {OWNER: "GEO"}}
    publisher.on_message('{"dataset": "geo", "version": 2}')
    assert catalog.tables["geo"]["Parameters"] == {OWNER: "GEO"}


def test_the_history_table_holds_when_each_written_kept_version_was_live(tmp_path: Path) -> None:
    import duckdb

    publisher, objects, catalog = _publisher(DatasetRecord(name="geo", live=2, previous=3), HISTORY, tmp_path)
    _written(objects, 1, 2, 3)
    publisher.on_message('{"dataset": "geo", "version": 2}')

    table = catalog.tables["geo_history"]
    assert table["StorageDescriptor"]["Location"] == "s3://b/_tables/geo/_history/"
    assert [c["Name"] for c in table["StorageDescriptor"]["Columns"]] == ["version", "live_from", "live_until"]
    path = tmp_path / "history.parquet"
    path.write_bytes(objects.store["_tables/geo/_history/history.parquet"])
    con = duckdb.connect()
    rows = con.execute(
        f"SELECT version, epoch(live_from), epoch(live_until) FROM read_parquet('{path}') ORDER BY live_from"
    ).fetchall()
    assert rows == [(2, 2.0, 3.0), (3, 3.0, None)]  # version 1 is gone: no period of it is kept
    at = con.execute(
        f"SELECT version FROM read_parquet('{path}') WHERE live_from <= to_timestamp(2.5) "
        "AND (live_until IS NULL OR to_timestamp(2.5) < live_until)"
    ).fetchall()
    assert at == [(2,)]


class RolledBackMidway(Datasets):
    """The dataset's record as a rollback leaves it, from the ``after``-th read on (the live version 2 becomes 3)."""

    def __init__(self, after: int) -> None:
        super().__init__(DatasetRecord(name="geo", live=2, previous=3), HISTORY)
        self.reads, self.after = 0, after

    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        self.reads += 1
        return self.record if self.reads < self.after else DatasetRecord(name="geo", live=3, previous=2)


@pytest.mark.parametrize("after", [2, 3])  # before the registration, or between it and the check after
def test_a_rollback_between_the_read_and_the_registration_is_registered_too(tmp_path: Path, after: int) -> None:
    publisher, objects, catalog = _publisher(DatasetRecord(name="geo", live=2), HISTORY, tmp_path)
    object.__setattr__(publisher, "datasets", RolledBackMidway(after))
    _written(objects, 2, 3)
    publisher.on_message('{"dataset": "geo", "version": 2}')
    assert catalog.tables["geo"]["StorageDescriptor"]["Location"] == "s3://b/_tables/geo/version=3/"


def test_a_data_column_named_as_the_partition_is_left_out_of_the_versions_table(tmp_path: Path) -> None:
    publisher, objects, catalog = _publisher(DatasetRecord(name="geo", live=2), HISTORY, tmp_path)
    for version in (2, 3):
        columns = [*COLUMNS, ["version", "string"]]
        objects.put_bytes(parquet_columns_key("geo", version), json.dumps(columns).encode())
    publisher.on_message('{"dataset": "geo", "version": 2}')
    declared = [c["Name"] for c in catalog.tables["geo_versions"]["StorageDescriptor"]["Columns"]]
    assert declared == ["ip_bucket", "country"]
    assert [key["Name"] for key in catalog.tables["geo_versions"]["PartitionKeys"]] == ["version"]
    live = [c["Name"] for c in catalog.tables["geo"]["StorageDescriptor"]["Columns"]]
    assert live == ["ip_bucket", "country", "version"]  # the live table has no partition: the column is its own


class KeyedVersions:
    def get(self, dataset: str, version: int) -> VersionInfo | None:
        return VersionInfo(dataset, version, ("asn", "name"), {}, keyed="asn")  # a keyed dataset's version


def test_a_keyed_dataset_gets_no_tables_and_says_so(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    publisher, objects, catalog = _publisher(DatasetRecord(name="geo", live=2), HISTORY, tmp_path)
    publisher = dataclasses.replace(publisher, versions=KeyedVersions())
    caplog.set_level(logging.INFO)
    publisher.on_message('{"dataset": "geo", "version": 2}')
    assert (catalog.tables, objects.store, objects.markers) == ({}, {}, {})
    assert "a keyed dataset: no tables (it holds no ranges)" in caplog.text
