"""The item codec: records round-trip, and items written before the data layer was split still read back.

``tests/data/items-before-redesign.json`` holds every item the previous single-class store wrote for this
history (scanned from its table): dataset ``geo`` loaded as version 1, then a second load that failed with a
problem; dataset ``asn`` with a change seen and never built.
"""

from __future__ import annotations

import json
from typing import Any

from fencepost.aws.dynamo.codec import decode, encode
from fencepost.aws.dynamo.timelines import event_item, event_of
from fencepost.core.storage.keys import DATASETS_PK, VERSION_HEADER_SK, builds_pk, dataset_id
from fencepost.core.versions.history import Event
from fencepost.model import (
    BuildRecord,
    BuildState,
    DatasetRecord,
    LoadState,
    LoadStatus,
    ObjectRef,
    Phase,
    Problem,
    VersionHeader,
)
from tests.support import ROOT

ITEMS: list[dict[str, Any]] = json.loads((ROOT / "tests" / "data" / "items-before-redesign.json").read_text())
OBJECTS = [ObjectRef("geo/a.csv", "0123abcd", 1234)]


def _item(pk: str, sk: int) -> dict[str, Any]:
    (item,) = [item for item in ITEMS if (item["PK"]["S"], item["SK"]["N"]) == (pk, str(sk))]
    return item


def test_a_dataset_record_written_before_reads_back_whole() -> None:
    record = decode(DatasetRecord, _item(DATASETS_PK, dataset_id("geo")))
    assert record == DatasetRecord(
        name="geo",
        live=1,
        status=LoadStatus.FAILED,
        ranges=2,
        loaded_at="2026-11-21T00:00:05+00:00",
        objects=OBJECTS,
        load=LoadState(
            version=2,
            phase=Phase.FAILED,
            problems=[Problem("", None, "the objects hold no ranges")],
            report="_reports/geo/2.json",
        ),
        live_since=1005.0,
        heartbeat=2002.0,
        requests=2,
        planned=2,
        builds=2,
    )
    assert isinstance(record.status, LoadStatus)
    assert isinstance(record.load.phase, Phase)
    assert isinstance(record.heartbeat, float)


def test_a_record_with_only_a_request_reads_back_with_defaults() -> None:
    record = decode(DatasetRecord, _item(DATASETS_PK, dataset_id("asn")))
    assert record == DatasetRecord(name="asn", heartbeat=3000.0, requests=1)
    assert record.to_api()["load"] == {
        "version": None,
        "phase": "queued",
        "rows_read": 0,
        "items_written": 0,
        "problems": [],
        "report": None,
        "diff": None,
        "items": 0,
    }


def test_a_build_record_written_before_reads_back_with_its_key_fields() -> None:
    item = _item(builds_pk("geo"), 1)
    record = decode(BuildRecord, item, dataset="geo", build=1)
    assert record == BuildRecord(
        "geo",
        1,
        state=BuildState.LIVE,
        chunks=1,
        done={1},
        written=2,
        ranges=2,
        items=2,
        objects=OBJECTS,
        report="_reports/geo/1.json",
        started=1001.25,
    )


def test_records_encode_to_the_items_written_before() -> None:
    # The same attribute names and types: old and new code can share a table during a deploy.
    build = decode(BuildRecord, _item(builds_pk("geo"), 1), dataset="geo", build=1)
    assert encode(build, PK=builds_pk("geo"), SK=1) == _item(builds_pk("geo"), 1)
    header_item = _item("#v#geo#1", VERSION_HEADER_SK)
    header = decode(VersionHeader, header_item)
    assert header == VersionHeader(("country", "asn"), 2, 2, OBJECTS, "2026-11-21T00:00:00+00:00")
    assert encode(header, PK="#v#geo#1", SK=VERSION_HEADER_SK) == header_item


def test_empty_sets_and_none_are_left_out_and_read_back_as_defaults() -> None:
    item = encode(BuildRecord("geo", 7), PK=builds_pk("geo"), SK=7)
    assert "done" not in item
    assert "report" not in item
    assert decode(BuildRecord, item, dataset="geo", build=7) == BuildRecord("geo", 7)


def test_the_api_shape_is_served_from_the_record() -> None:
    record = decode(DatasetRecord, _item(DATASETS_PK, dataset_id("geo")))
    assert list(record.to_api())[:7] == ["name", "version", "status", "ranges", "loaded_at", "built_at", "data_date"]
    assert list(record.to_api())[7:9] == ["objects", "load"]
    assert record.to_api()["objects"] == [{"key": "geo/a.csv", "etag": "0123abcd", "size": 1234}]
    assert record.to_api()["load"]["problems"] == [{"object": "", "line": None, "reason": "the objects hold no ranges"}]


def test_what_a_build_changed_travels_from_its_record_to_its_history_event() -> None:
    # The build record keeps the percent of each family's space it changed (tiny IPv6 shares included)
    record = BuildRecord("geo", 7, objects=OBJECTS, changed=(4.6875, 1.9259299443872359e-34))
    item = encode(record, PK=builds_pk("geo"), SK=7)
    assert decode(BuildRecord, item, dataset="geo", build=7) == record
    # and the event of its switch keeps them, which the window gate sums; a rollback's event has none
    switched = event_of(event_item("geo", 1_795_000_000.5, 7, changed=record.changed))
    assert switched == Event(1_795_000_000.5, 7, changed=(4.6875, 1.9259299443872359e-34))
    assert event_of(event_item("geo", 1_795_000_001.0, 6)).changed is None
