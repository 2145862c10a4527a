"""The AS-names presets, each fed by a release in its publisher's layout (``tests.releases``: the CIDR Report's
``autnums.html``, RIPE's ``asn.txt``) from a local server, through the real fetch and loader, into a keyed folder
(``{"key": "asn"}``, as docs/keyed.md pairs them): the folder goes READY, its table holds the release's names. The
registries' preset (``rir-delegated``, which range folders take for its ip records) feeds a keyed folder the same
way, with its files' ``asn`` records."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fencepost.bootstrap.fetch_wiring import FetchFunction
from fencepost.core.sources.presets import PRESETS
from tests.publisher import Publisher
from tests.releases import KEYED_RELEASES, local_path, registries
from tests.support.keyed import stored_table
from tests.support.sources import check
from tests.support.stacks import Stack


def _document(name: str, site: Publisher) -> dict[str, Any]:
    """The preset's source, its address on the local publisher: what ``{"preset": name}`` expands to."""
    document: dict[str, Any] = copy.deepcopy(PRESETS[name].source)
    document["url"] = site.url(local_path(document["url"]))
    return document


@pytest.mark.parametrize("name", sorted(KEYED_RELEASES))
def test_each_as_names_preset_loads_its_publishers_layout_into_a_keyed_folder(
    stack: Stack, fetch: FetchFunction, name: str
) -> None:
    release = KEYED_RELEASES[name]()
    with Publisher() as site:
        for path, body in release.files.items():
            site.publish(path, body)
        stack.put(f"{name}/_settings.json", json.dumps({"key": "asn"}))
        stack.put(f"{name}/_source.json", json.dumps(_document(name, site)))
        assert check(fetch, stack) == {name: "CHANGED"}, stack.get(f"/datasets/{name}")[1]["source"]["reason"]
    record = stack.dataset(name)
    assert (record["status"], record["ranges"]) == ("READY", 3), record["load"]["problems"]
    assert all(o["key"].startswith(f"{name}/_fetched/") for o in record["objects"])
    table = stored_table(stack, name, record["version"])
    key, column, value = release.expected
    row = table.row(key)
    assert row is not None
    assert row[table.columns.index(column)] == value


def test_the_registries_preset_feeds_a_keyed_folder_with_their_asn_records(stack: Stack, fetch: FetchFunction) -> None:
    with Publisher() as site:
        for path, body in registries().files.items():
            site.publish(path, body)
        document: dict[str, Any] = copy.deepcopy(PRESETS["rir-delegated"].source)
        for entry in document["files"]:
            entry["url"] = site.url(local_path(entry["url"]))
        stack.put("asn-registry/_settings.json", json.dumps({"key": "asn"}))
        stack.put("asn-registry/_source.json", json.dumps(document))
        assert check(fetch, stack) == {"asn-registry": "CHANGED"}
    record = stack.dataset("asn-registry")
    assert (record["status"], record["ranges"]) == ("READY", 5), record["load"]["problems"]
    table = stored_table(stack, "asn-registry", record["version"])
    assert table.columns == ("registry", "country", "date", "status", "opaque_id")
    assert table.row("AS28573") == ("lacnic", "BR", "20000101", "allocated", "x1")
    assert {row[0] for row in table.rows.values()} == {"arin", "ripencc", "apnic", "lacnic", "afrinic"}
