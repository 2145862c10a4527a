"""Folder settings are part of what a version is built from: changing ``_settings.json`` (put, changed or deleted)
starts a build on its own, and a version records the settings it was built with."""

from __future__ import annotations

import json

import pytest

from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.storage.objects import settings_owner
from fencepost.model import LoadStatus, Phase
from tests.fakes import DATASET, World, loader_settings
from tests.support.loads import KEY, A, assert_no_surprises, load

SETTINGS = f"{DATASET}/_settings.json"


def columns(world: World) -> tuple[str, ...]:
    live = world.record().live
    assert live is not None
    info = world.versions.get(DATASET, live)
    assert info is not None
    return info.columns


def test_a_changed_settings_object_alone_builds_a_new_version() -> None:
    # Given a live version built without settings (the file has no header: columns are named col3, ...)
    world = World(loader_settings(chunk_items=50))
    load(world, A)
    assert (world.record().live, columns(world)) == (1, ("col3",))
    # When only the folder's settings are put: the columns get a name
    world.upload(SETTINGS, json.dumps({"columns": ["country"]}))
    world.settle()
    # Then a new version is built from the same object, with the settings applied
    record = world.record()
    assert (record.status, record.live, record.previous, record.load.phase) == (LoadStatus.READY, 2, 1, Phase.DONE)
    assert columns(world) == ("country",)
    assert record.settings == settings_digest(FolderSettings(columns=("country",)))
    # When they are changed
    world.upload(SETTINGS, json.dumps({"columns": ["cc"]}))
    world.settle()
    assert (world.record().live, columns(world)) == (3, ("cc",))
    # When they are deleted
    world.remove(SETTINGS)
    world.settle()
    assert (world.record().live, columns(world)) == (4, ("col3",))
    assert_no_surprises(world)


def test_settings_that_mean_the_same_build_nothing() -> None:
    # Given a version built with settings
    world = World(loader_settings(chunk_items=50))
    world.bucket.put_object(SETTINGS, json.dumps({"columns": ["country"]}))
    load(world, A)
    # When the settings object is written again, reformatted, and the data object uploaded again
    world.upload(SETTINGS, json.dumps({"columns": ["country"]}, indent=4))
    world.settle()
    load(world, A)
    # Then nothing is built: the sources are those of the live version
    record = world.record()
    assert (record.live, record.load.phase, world.stored_versions()) == (1, Phase.UNCHANGED, {1})
    assert world.bucket.data(DATASET) == [world.bucket.ref(KEY)]
    assert_no_surprises(world)


@pytest.mark.parametrize(
    ("key", "owner"),
    [
        ("geo/_settings.json", "geo"),
        ("_settings.json", "default"),
        ("default/_settings.json", "default"),
        ("geo/2026/_settings.json", None),  # settings apply to a whole folder only
        ("geo/settings.json", None),
        ("bad name!/_settings.json", None),
        ("_reports/geo/1.json", None),
    ],
)
def test_which_keys_are_a_datasets_settings(key: str, owner: str | None) -> None:
    assert settings_owner(key) == owner
