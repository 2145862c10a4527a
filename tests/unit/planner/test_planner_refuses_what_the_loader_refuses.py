"""``make plan`` and the loader build with one recipe (``fencepost.loading.recipe``): each folder a load refuses, the
planner refuses too, for the same reason, and each folder a load takes, the planner plans to the same ranges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fencepost.loading.progress import LoadFailure
from fencepost.model import LoadStatus
from planner.local_build import read_build
from tests.fakes.world import DATASET, REPLACED_WHOLE, World

CSV = "network,country,owner_id\n1.0.0.0/24,AU,o1\n1.0.1.0/24,CN,o2\n2.0.0.0/24,FR,o3\n"
OWNERS = "owner_id,owner\no1,Alice\no2,Bob\n"
INVALID = CSV + "not an address,XX,o1\n300.0.0.1/32,XX,o1\n"
SPREAD = "network,country,owner_id\n1.0.0.0/24,AU,o1\n2.0.0.0/24,CN,o2\n3.0.0.0/24,FR,o3\n"

REFUSED = {
    "index names a column the rows lack": ({"index": ["asn"]}, {"data.csv": CSV}),
    "numeric names a column the rows lack": ({"numeric": ["asn"]}, {"data.csv": CSV}),
    "constants name a column the rows have": ({"constants": {"country": "x"}}, {"data.csv": CSV}),
    "gap_when names a column the rows lack": ({"gap_when": {"asn": "0"}}, {"data.csv": CSV}),
    "more invalid rows than allowed": ({"max_invalid_rows": 1}, {"data.csv": INVALID}),
    "more unjoined rows than allowed": (
        {"join": {"object": "owners.csv", "on": "owner_id"}, "max_unjoined_rows": 0},
        {"data.csv": CSV, "owners.csv": OWNERS},
    ),
    "a join table the folder lacks": ({"join": {"object": "owners.csv", "on": "owner_id"}}, {"data.csv": CSV}),
    "no range at all": ({}, {"data.csv": "network,country,owner_id\n"}),
    "more partitions than the folder allows": ({"limits": {"max_directory_partitions": 2}}, {"data.csv": SPREAD}),
}


def _load(settings: dict[str, object], files: dict[str, str]) -> World:
    world = World(folder={**REPLACED_WHOLE, **settings})
    for name, body in files.items():
        world.upload(f"{DATASET}/{name}", body)
    world.settle()
    world.clean_up()
    return world


def _loader_reason(world: World) -> tuple[LoadStatus, str]:
    record = world.record()
    return record.status, (record.load.problems[0].reason if record.load.problems else "")


def _planner(tmp_path: Path, settings: dict[str, object], files: dict[str, str]) -> list[Path]:
    folder = tmp_path / DATASET
    folder.mkdir()
    (folder / "_settings.json").write_text(json.dumps({**REPLACED_WHOLE, **settings}))
    for name, body in files.items():
        (folder / name).write_text(body)
    return sorted(folder.iterdir())


@pytest.mark.parametrize(("settings", "files"), REFUSED.values(), ids=REFUSED.keys())
def test_the_planner_refuses_what_the_loader_refuses_for_the_same_reason(
    tmp_path: Path, settings: dict[str, object], files: dict[str, str]
) -> None:
    status, reason = _loader_reason(_load(settings, files))
    assert status == LoadStatus.FAILED, reason

    with pytest.raises(LoadFailure) as refused:
        read_build(_planner(tmp_path, settings, files), DATASET)

    # (the planner names the settings file by its path here, the loader by its key)
    assert refused.value.problem.reason.replace(f"{tmp_path}/", "") == reason


def test_a_folder_the_loader_takes_the_planner_plans_to_the_same_ranges(tmp_path: Path) -> None:
    settings = {"join": {"object": "owners.csv", "on": "owner_id"}, "index": ["owner"], "max_invalid_rows": 2}
    files = {"data.csv": INVALID.replace("2.0.0.0/24,FR,o3\n", ""), "owners.csv": OWNERS}
    world = _load(settings, files)
    status, reason = _loader_reason(world)
    assert status == LoadStatus.READY, reason

    build = read_build(_planner(tmp_path, settings, files), DATASET)

    loaded = world.items(world.record().live or 0)
    assert build.rows == 2
    assert sorted(write.key for write in build.items) == sorted(key for key, _ in loaded)
    assert len(loaded) == 2
