"""A release's manifest keeps the Last-Modified the publisher sent with each file it wrote (the data's own date,
``fencepost.core.versions.data_dates``), also for a file that was not modified since and is kept as it was."""

from __future__ import annotations

import json

from fencepost.core.sources.schedule import Outcome
from fencepost.core.storage.objects import release_dates, release_key
from fencepost.core.versions.data_dates import from_http_date
from tests.unit.sources.world import RELEASE, World

V4, V6 = "drop/_fetched/drop.txt", "drop/_fetched/drop-v6.txt"


def _dates(world: World) -> dict[str, str]:
    return release_dates(json.loads(world.folders.objects[release_key("drop")]))


def test_the_manifest_keeps_each_files_last_modified_and_none_for_a_file_without_one(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE, modified=1_795_516_262.0)  # 2026-11-24T10:31:02Z
    world.site.publish("/drop-v6.txt", b"2001:db8::/32\n", modified=None)
    world.source({"files": [{"url": world.site.url("/drop.txt")}, {"url": world.site.url("/drop-v6.txt")}]})
    assert world.checker.check("drop").outcome is Outcome.CHANGED
    dates = _dates(world)
    assert list(dates) == [V4]  # the other file's publisher sent no Last-Modified
    assert from_http_date(dates[V4]) == "2026-11-24T10:31:02Z"
    # A new release of one file: the other, answered 304, keeps its own date
    world.site.publish("/drop-v6.txt", b"2001:db8::/31\n", modified=1_795_600_000.0)
    assert world.checker.check("drop", force=True).outcome is Outcome.CHANGED
    assert world.site.requests("/drop.txt")[-1].status == 304
    dates = _dates(world)
    assert from_http_date(dates[V4]) == "2026-11-24T10:31:02Z"
    assert from_http_date(dates[V6]) == "2026-11-25T09:46:40Z"
