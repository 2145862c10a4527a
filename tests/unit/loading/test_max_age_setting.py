"""A folder's ``max_age`` is read by each load into the dataset's record (what listings show staleness by); changing
it alone builds nothing, and removing it clears it."""

from __future__ import annotations

import json

from fencepost.model import Phase
from tests.fakes import DATASET, REPLACED_WHOLE, World, loader_settings
from tests.support.loads import A, load

SETTINGS = f"{DATASET}/_settings.json"


def test_max_age_is_kept_in_the_record_and_changing_it_builds_nothing() -> None:
    # Given a dataset built with "max_age": "8d"
    world = World(loader_settings(chunk_items=50), folder={**REPLACED_WHOLE, "max_age": "8d"})
    load(world, A)
    record = world.record()
    assert (record.live, record.max_age) == (1, 8 * 86_400)
    # When only max_age changes: no version is built, and the record knows the new one
    world.upload(SETTINGS, json.dumps({**REPLACED_WHOLE, "max_age": "36h"}))
    world.settle()
    record = world.record()
    assert (record.live, record.load.phase, record.max_age) == (1, Phase.UNCHANGED, 36 * 3600)
    # When it is removed: unset again
    world.upload(SETTINGS, json.dumps(REPLACED_WHOLE))
    world.settle()
    assert (world.record().live, world.record().max_age) == (1, 0)


def test_a_bad_max_age_fails_the_load_naming_the_setting() -> None:
    world = World(loader_settings(chunk_items=50), folder={**REPLACED_WHOLE, "max_age": "a week"})
    load(world, A)
    record = world.record()
    assert record.live is None
    assert any("max_age must be a number and a unit" in problem.reason for problem in record.load.problems)
