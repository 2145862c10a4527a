"""The Glue side of the tables, pure: dataset names as Glue names, the columns declared, the two tables' inputs, and
the tables function's messages read (a bad one refused with a clear reason)."""

from __future__ import annotations

import pytest

from fencepost.core.versions.history import Event, Timeline
from fencepost.model import DatasetRecord
from fencepost.tables import catalog
from fencepost.tables.registering import MessageError, kept_versions, parse


@pytest.mark.parametrize(
    ("dataset", "name"),
    [("geo", "geo"), ("GeoIP-v2.lite", "geoip_v2_lite"), ("2024_asn", "2024_asn"), ("a-b", "a_b")],
)
def test_a_dataset_name_maps_to_a_glue_name(dataset: str, name: str) -> None:
    assert catalog.glue_name(dataset) == name


def test_columns_glue_cannot_name_are_left_out_and_types_are_glues() -> None:
    columns = [
        ("ip_bucket", "int64"),
        ("ip_family", "int8"),
        ("Country", "string"),
        ("lat", "double"),
        ("a b", "string"),
    ]
    assert catalog.glue_columns(columns) == [
        {"Name": "ip_bucket", "Type": "bigint"},
        {"Name": "ip_family", "Type": "tinyint"},
        {"Name": "lat", "Type": "double"},
    ]
    assert catalog.left_out(columns) == ["Country", "a b"]


def test_names_glue_cannot_take_are_written_in_its_alphabet_each_once() -> None:
    names = ["country.iso_code", "City.Names.EN", "1st", "a.b", "a_b", "version", "", "x" * 300]
    assert catalog.glue_names(names, reserved=["version"]) == [
        "country_iso_code",
        "city_names_en",
        "_1st",
        "a_b",
        "a_b_2",
        "version_2",
        "_",
        "x" * 250,
    ]


def test_a_table_whose_columns_glue_cannot_all_name_reads_them_by_position_under_glue_names() -> None:
    columns = [("ip_bucket", "int64"), ("country.iso_code", "string"), ("location.latitude", "double")]
    index = {catalog.INDEX_ACCESS: "true"}
    for table in (
        catalog.live_table("city", "b", columns, 2),
        catalog.versions_table("city", "b", columns, [1, 2], 2),
    ):
        described = table["StorageDescriptor"]
        assert described["Columns"] == [
            {"Name": "ip_bucket", "Type": "bigint"},
            {"Name": "country_iso_code", "Type": "string"},
            {"Name": "location_latitude", "Type": "double"},
        ]
        assert described["SerdeInfo"]["Parameters"] == index
    # versions whose columns differ cannot be read by position: by name, the others left out
    apart = catalog.versions_table("city", "b", columns, [1, 2], 2, uniform=False)["StorageDescriptor"]
    assert apart["Columns"] == [{"Name": "ip_bucket", "Type": "bigint"}]
    assert "Parameters" not in apart["SerdeInfo"]
    # columns Glue can all name: by name, as they are
    plain = catalog.live_table("geo", "b", [("ip_bucket", "int64"), ("cc", "string")], 1)["StorageDescriptor"]
    assert ([c["Name"] for c in plain["Columns"]], "Parameters" in plain["SerdeInfo"]) == (["ip_bucket", "cc"], False)


def test_the_versions_table_projects_its_written_versions_and_the_live_table_points_at_the_live_folder() -> None:
    columns = [("ip_bucket", "int64")]
    versions = catalog.versions_table("Geo.x", "b", columns, [3, 1], 3)
    assert versions["Name"] == "geo_x_versions"
    assert versions["Parameters"]["projection.version.values"] == "1,3"
    assert versions["Parameters"]["storage.location.template"] == "s3://b/_tables/Geo.x/version=${version}/"
    live = catalog.live_table("Geo.x", "b", columns, 3)
    assert (live["Name"], live["StorageDescriptor"]["Location"]) == ("geo_x", "s3://b/_tables/Geo.x/version=3/")
    assert live["Parameters"][catalog.OWNER] == "Geo.x"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("not json", "is JSON"),
        ("[1]", "JSON object"),
        ('{"version": 1}', "names its dataset"),
        ('{"dataset": "../etc", "version": 1}', "invalid dataset name"),
        ('{"dataset": "geo", "version": 0}', "positive integer"),
        ('{"dataset": "geo", "version": true}', "positive integer"),
        ('{"dataset": "geo", "version": "3"}', "positive integer"),
    ],
)
def test_a_bad_message_is_refused_with_its_reason(body: str, reason: str) -> None:
    with pytest.raises(MessageError, match=reason):
        parse(body)
    assert parse('{"dataset": "geo", "version": 3}') == ("geo", 3)


def test_the_kept_versions_are_live_previous_and_those_in_the_history_not_gone() -> None:
    record = DatasetRecord(name="geo", live=5, previous=4)
    timeline = Timeline([Event(1.0, 2), Event(2.0, 3, gone=True), Event(3.0, 4), Event(4.0, 5)])
    assert kept_versions(record, timeline) == [2, 4, 5]
