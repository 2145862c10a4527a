"""``GET /datasets/{name}/diff`` pages (``fencepost.http.build_diff_routes``) over builds of the loader's World: every
change once, in order, at any page size and budget; the cursor pinned to its build; and every refusal."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from fencepost.core.storage.members import MEMBER_LINES, Position
from fencepost.core.storage.objects import changes_key
from fencepost.errors import CursorExpired, InvalidRequest, NotFound, ResponseTooLarge, Unavailable, UnknownDataset
from fencepost.http.build_diff_routes import DiffCursor, DiffListing, parse_diff_cursor
from tests.fakes.world import World, loader_settings
from tests.support.diffs import V1, V2

DATASET = "geo"


def _world(*bodies: str) -> World:
    world = World(loader_settings())
    for body in bodies:
        world.upload(f"{DATASET}/ranges.csv", body)
        world.settle()
    return world


def _listing(world: World, budget: int = 4_500_000) -> DiffListing:
    def record(name: str) -> Any:
        return world.record(name) if name in world.datasets.records else None

    return DiffListing(record, record, lambda: world.bucket, budget)


def _page(listing: DiffListing, **query: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(listing.answer(DATASET, query))
    return result


def _all(listing: DiffListing, limit: int) -> list[dict[str, Any]]:
    changes, cursor = [], None
    while True:
        page = _page(listing, limit=str(limit), **({"cursor": cursor} if cursor else {}))
        assert len(page["changes"]) <= limit
        changes += page["changes"]
        cursor = page["next"]
        if cursor is None:
            return changes


def rows(count: int, country: str) -> str:
    # /24s 1.0.0.0, 1.0.2.0, ... (a gap after each), so that every changed answer is a separate change
    lines = [
        f"1.{n // 128}.{(n % 128) * 2}.0,1.{n // 128}.{(n % 128) * 2}.255,{country if n % 3 else 'AU'}"
        for n in range(count)
    ]
    return "start,end,country\n" + "\n".join(lines) + "\n"


def test_the_latest_build_serves_its_changes_with_its_figures() -> None:
    page = _page(_listing(_world(V1, V2)))
    assert (page["dataset"], page["version"], page["status"], page["next"]) == (DATASET, 2, "READY", None)
    assert (page["diff"]["baseline"], page["diff"]["changed"]) == (1, 1)
    assert page["changes"] == [
        {"start": "1.0.1.0", "end": "1.0.1.255", "change": "changed", "data": {"country": "JP"}},
        {"start": "2.0.0.0", "end": "2.0.0.255", "change": "added", "data": {"country": "FR"}},
        {"start": "2001:db8::", "end": "2001:db8::ffff", "change": "removed", "data": None},
    ]


def test_a_first_version_has_no_changes_and_says_why() -> None:
    page = _page(_listing(_world(V1)))
    assert (page["version"], page["changes"], page["next"]) == (1, [], None)
    assert page["diff"]["baseline"] is None
    assert "first version" in page["diff"]["note"]


@pytest.mark.parametrize("limit", [1, 7, 999, 1000])
def test_pages_of_any_size_give_every_change_once_across_members(limit: int) -> None:
    world = _world(rows(3200, "NZ"), rows(3200, "JP"))
    listing = _listing(world)
    whole = world.bucket.objects[changes_key(DATASET, 2)]
    expected = [json.loads(line) for line in gzip.decompress(whole).decode().splitlines()]
    assert len(expected) > 2 * MEMBER_LINES  # three members at least
    assert _all(listing, limit) == expected


def test_the_response_budget_ends_a_page_early_and_the_next_one_goes_on() -> None:
    world = _world(rows(300, "NZ"), rows(300, "JP"))
    small, whole = _listing(world, budget=2_000), _page(_listing(world), limit="1000")["changes"]
    page = _page(small, limit="1000")
    assert 0 < len(page["changes"]) < len(whole)
    assert page["next"] is not None
    assert len(json.dumps(page)) <= 2_000
    assert _all(small, 1000) == whole
    huge = _world(V1, V2.replace("FR", "F" * 3000))
    assert _page(_listing(huge, budget=2_000), limit="1")["changes"][0]["data"] == {"country": "JP"}
    with pytest.raises(ResponseTooLarge, match="RESPONSE_BUDGET_BYTES"):
        _listing(huge, budget=2_000).answer(DATASET, {"cursor": _page(_listing(huge), limit="1")["next"]})


def test_a_cursor_expires_when_a_newer_load_replaces_its_build() -> None:
    world = _world(V1, V2)
    listing = _listing(world)
    cursor = _page(listing, limit="1")["next"]
    world.upload(f"{DATASET}/ranges.csv", V1)
    world.settle()
    with pytest.raises(CursorExpired, match="start again"):
        listing.answer(DATASET, {"cursor": cursor})
    assert _page(listing)["version"] == 3


@pytest.mark.parametrize(
    ("cursor", "reason"),
    [
        ("not-a-cursor", "invalid cursor"),
        (DiffCursor("other", 2, Position(0, 0)).token(), "dataset 'other'"),
        (DiffCursor(DATASET, 2, Position(0, MEMBER_LINES)).token(), "invalid cursor"),
        (DiffCursor(DATASET, 2, Position(-1, 0)).token(), "invalid cursor"),
        (DiffCursor(DATASET, 2, Position(0, 0)).token()[:-2] + "00", "invalid cursor"),
        (DiffCursor(DATASET, 2, Position(0, 0)).token().replace(".", ". "), "invalid cursor"),
    ],
)
def test_a_bad_cursor_is_invalid_request(cursor: str, reason: str) -> None:
    with pytest.raises(InvalidRequest, match=reason):
        parse_diff_cursor(cursor, DATASET)


def test_a_forged_offset_inside_the_file_is_invalid_request() -> None:
    listing = _listing(_world(V1, V2))
    with pytest.raises(InvalidRequest, match="invalid cursor"):
        listing.answer(DATASET, {"cursor": DiffCursor(DATASET, 2, Position(3, 0)).token()})
    with pytest.raises(InvalidRequest, match="invalid cursor"):
        listing.answer(DATASET, {"cursor": DiffCursor(DATASET, 2, Position(10**9, 0)).token()})


def test_refusals() -> None:
    world = _world(V1, V2)
    with pytest.raises(UnknownDataset):
        _listing(world).answer("nosuch", {})
    with pytest.raises(InvalidRequest, match="invalid dataset name"):
        _listing(world).answer("../x", {})
    with pytest.raises(InvalidRequest, match="limit"):
        _listing(world).answer(DATASET, {"limit": "0"})
    with pytest.raises(Unavailable, match="BUCKET_NAME"):
        DiffListing(lambda _: world.record(DATASET), lambda _: None, None, 4_500_000).answer(DATASET, {})
    world.bucket.delete_object(changes_key(DATASET, 2))
    with pytest.raises(NotFound, match="no longer kept"):
        _listing(world).answer(DATASET, {})
