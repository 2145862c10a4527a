"""``GET /datasets`` and ``GET /datasets/{name}`` show a dataset's freshness at the wall clock's time: stale once its
live version is older than the folder's ``max_age`` (or three of its source's intervals), fresh again once a newer
version is live; nothing known without a max age or a live version."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from fencepost.core.folders.backfill import Dated
from fencepost.core.sources.schedule import Outcome, SourceState
from fencepost.core.sources.spec import parse_source
from fencepost.http.dataset_routes import Listings
from fencepost.http.openapi.schemas import Dataset, DatasetList
from fencepost.model import BuildRecord, DatasetRecord

BUILT = "2026-11-20T00:00:00+00:00"
BUILT_EPOCH = 1_795_132_800.0
HOUR, DAY = 3600, 86_400
UNKNOWN = {"stale": None, "age_seconds": None, "max_age_seconds": None}


class Store:
    def __init__(self) -> None:
        self.records = {
            "geo": DatasetRecord(name="geo", live=1, loaded_at=BUILT, max_age=8 * DAY),
            "drop": DatasetRecord(name="drop", live=4, loaded_at=BUILT),
            "plain": DatasetRecord(name="plain", live=2, loaded_at=BUILT),
            "empty": DatasetRecord(name="empty", max_age=DAY),
        }
        source = parse_source(b'{"url": "https://e.org/drop.txt", "every": "1h"}', "s", least_every=60, https_only=True)
        self.sources = {"drop": SourceState().checked(source, Outcome.UNCHANGED, 1_795_132_800_000, least_every=60)}

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        return self.records.get(name)

    def list_datasets(self) -> list[DatasetRecord]:
        return list(self.records.values())

    def list_source_states(self) -> dict[str, SourceState]:
        return self.sources

    def list_builds(self, dataset: str) -> list[BuildRecord]:
        return []

    def list_dated(self, dataset: str) -> list[Dated]:
        return []


class Wall:
    def __init__(self) -> None:
        self.now = BUILT_EPOCH

    def __call__(self) -> float:
        return self.now


def freshness(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: answer[key] for key in ("stale", "age_seconds", "max_age_seconds")}


def listed(listings: Listings) -> dict[str, dict[str, Any]]:
    return {d["name"]: freshness(d) for d in json.loads(listings.answer_all().body)["datasets"]}


def test_a_dataset_is_stale_once_older_than_its_max_age_and_fresh_after_a_newer_version() -> None:
    store, wall = Store(), Wall()
    listings = Listings(store, 0.0, wall=wall)
    # Given a dataset with "max_age": "8d", seven days after its version was built: fresh
    wall.now = BUILT_EPOCH + 7 * DAY
    one = json.loads(listings.answer_one("geo").body)
    assert freshness(one) == {"stale": False, "age_seconds": 7 * DAY, "max_age_seconds": 8 * DAY}
    # When nine days have passed: stale, in the list and alone
    wall.now = BUILT_EPOCH + 9 * DAY
    assert listed(listings)["geo"] == {"stale": True, "age_seconds": 9 * DAY, "max_age_seconds": 8 * DAY}
    assert json.loads(listings.answer_one("geo").body)["stale"] is True
    # When a newer version goes live (built an hour ago): fresh again
    newer = dataclasses.replace(store.records["geo"], live=2, loaded_at="2026-11-28T23:00:00+00:00")
    store.records["geo"] = newer
    assert freshness(json.loads(listings.answer_one("geo").body)) == {
        "stale": False,
        "age_seconds": HOUR,
        "max_age_seconds": 8 * DAY,
    }


def test_a_source_fed_dataset_defaults_to_three_intervals_and_others_to_none() -> None:
    store, wall = Store(), Wall()
    listings = Listings(store, 0.0, wall=wall)
    wall.now = BUILT_EPOCH + 3 * HOUR + 1
    shown = listed(listings)
    assert shown["drop"] == {"stale": True, "age_seconds": 3 * HOUR + 1, "max_age_seconds": 3 * HOUR}
    assert shown["plain"] == UNKNOWN  # no max_age, no source: never stale
    assert shown["empty"] == UNKNOWN  # a max age but no live version yet
    # And a folder's own max_age wins over its source's default
    store.records["drop"] = dataclasses.replace(store.records["drop"], max_age=DAY)
    assert listed(listings)["drop"] == {"stale": False, "age_seconds": 3 * HOUR + 1, "max_age_seconds": DAY}


def test_the_answers_are_the_documents_dataset_model_exactly() -> None:
    store, wall = Store(), Wall()
    wall.now = BUILT_EPOCH + 9 * DAY
    listings = Listings(store, 0.0, wall=wall)
    answers = json.loads(listings.answer_all().body)["datasets"]
    assert {answer["stale"] for answer in answers} == {True, None}  # stale ones, and ones without a max age
    for answer in answers:
        assert set(answer) == set(Dataset.model_fields)  # no field the document lacks, none it has missing
        assert Dataset.model_validate(answer).model_dump(mode="json") == answer
    schema = DatasetList.model_json_schema()["$defs"]["Dataset"]["properties"]
    for name in ("stale", "age_seconds", "max_age_seconds"):
        assert schema[name]["description"]
