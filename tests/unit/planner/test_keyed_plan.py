"""``make plan`` of a keyed folder: the loader (on the in-memory fakes) and the planner read it with one recipe
(``loading.keyed_building.read_keyed``), so the planner refuses what a load refuses, for the same reason, and plans a
folder a load takes to the same keys; the command prints the table's cost, never a stack trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.storage.objects import keys_key
from fencepost.loading.progress import LoadFailure
from fencepost.model import LoadStatus
from planner.__main__ import main
from planner.keyed_plan import keyed_plan
from tests.fakes.world import DATASET, World

ASN_TXT = "13335 CLOUDFLARENET - Cloudflare, Inc., US\n3320 DTAG Internet service provider operations, DE\n"
KEYED: dict[str, object] = {"key": "asn"}

REFUSED = {
    "a row without an AS number": ({**KEYED, "key_form": "asn"}, {"orgs.csv": "asn,org\n13335,Cloudflare\nx,none\n"}),
    "a key held twice with different values": (KEYED, {"a.txt": ASN_TXT, "b.txt": "13335 OTHER, US\n"}),
    "an empty list": (KEYED, {"asn.txt": "\n"}),
    "no key column": ({"key": "id"}, {"orgs.csv": "asn,org\n13335,Cloudflare\n"}),
    "more keys than the folder allows": ({**KEYED, "limits": {"max_keyed_rows": 1}}, {"asn.txt": ASN_TXT}),
}


def _load(settings: dict[str, object], files: dict[str, str]) -> World:
    world = World(folder=settings)
    for name, body in files.items():
        world.upload(f"{DATASET}/{name}", body)
    world.settle()
    return world


def _folder(tmp_path: Path, settings: dict[str, object], files: dict[str, str]) -> list[Path]:
    folder = tmp_path / DATASET
    folder.mkdir()
    (folder / "_settings.json").write_text(json.dumps(settings))
    for name, body in files.items():
        (folder / name).write_text(body)
    return sorted(folder.iterdir())


@pytest.mark.parametrize(("settings", "files"), REFUSED.values(), ids=REFUSED.keys())
def test_the_planner_refuses_a_keyed_folder_as_the_loader_does(
    tmp_path: Path, settings: dict[str, object], files: dict[str, str]
) -> None:
    record = _load(settings, files).record()
    assert record.status == LoadStatus.FAILED
    with pytest.raises(LoadFailure) as refused:
        keyed_plan(_folder(tmp_path, settings, files), DATASET)
    # (the planner names the settings file by its path here, the loader by its key)
    assert refused.value.problem.reason.replace(f"{tmp_path}/", "") == record.load.problems[0].reason


def test_a_keyed_folder_the_loader_takes_is_planned_to_the_same_keys(tmp_path: Path) -> None:
    files = {"asn.txt": ASN_TXT, "orgs.csv": "asn,name,country\nAS64512,Private,\n"}
    world = _load(KEYED, files)
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 1)
    stored = KeyedTable.decode(world.bucket.objects[keys_key(DATASET, 1)])

    planned = keyed_plan(_folder(tmp_path, KEYED, files), DATASET)

    assert planned is not None
    assert (planned.keys, planned.rows, planned.columns) == (len(stored.rows), 3, ("asn", "name", "country"))
    assert planned.object_bytes == len(stored.encode())
    assert planned.memory_bytes == stored.memory_bytes()


def test_make_plan_prints_a_keyed_folder_and_its_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path, KEYED, {"asn.txt": ASN_TXT})[0].parent
    assert main([str(folder), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["keyed"], shown["keys"], shown["columns"]) == (True, 2, ["asn", "name", "country"])
    (folder / "asn.txt").write_text("13335 A, US\n13335 B, US\n")
    assert main([str(folder)]) == 2
    error = capsys.readouterr().err
    assert "asn '13335' is held twice with different values" in error
    assert "Traceback" not in error
