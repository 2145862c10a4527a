"""Dated folders on the in-memory fakes (``fencepost.loading.backfilling``): each builds a version placed in the history
at its date, never live, one build after another; by date whatever the upload order; refused with a problem
naming it when its date is not before the first live version; a removed folder takes its version with it."""

from __future__ import annotations

from fencepost.core.folders.backfill import date_instant
from fencepost.model import BuildState, LoadStatus
from tests.fakes import DATASET, REPLACED_WHOLE, World, loader_settings
from tests.support.loads import (
    A,
    B,
    C,
    assert_no_surprises,
    assert_version,
    chunk_of,
    load,
    tsv,
)

GRACE = 960.0
JANUARY, JUNE = "2026-01-01", "2026-06-01"  # the simulated clock starts on 2027-01-15


def _world() -> World:
    return World(loader_settings(chunk_items=50, delete_grace=GRACE), folder={**REPLACED_WHOLE, "retain_days": 3650})


def _dated(world: World, date: str, rows: list[list[str]]) -> None:
    world.upload(f"{DATASET}/_history/{date}/a.tsv", tsv(rows))
    world.settle()


def _built(world: World, date: str, rows: list[list[str]]) -> int:
    """Upload a dated folder's file; the build that took it."""
    _dated(world, date, rows)
    build = world.history.dated(DATASET)[date].build
    assert build is not None
    return build


def _events(world: World) -> list[tuple[float, int | None, bool]]:
    return [(e.at, e.version, e.gone) for e in world.datasets.timeline(DATASET).events]


def test_dated_folders_are_placed_at_their_dates_and_never_go_live() -> None:
    # Given a live version, then two dated folders uploaded the later date first
    world = _world()
    load(world, A)
    live_since = world.record().live_since
    _dated(world, JUNE, B)
    _dated(world, JANUARY, C)
    # Then each was built (June first: it came first) and placed at its date: the history runs by date
    states = world.history.dated(DATASET)
    june, january = states[JUNE].build, states[JANUARY].build
    assert june is not None
    assert january is not None
    assert 1 < june < january
    timeline = world.datasets.timeline(DATASET)
    assert (states[JUNE].shown(timeline), states[JANUARY].shown(timeline)) == ("READY", "READY")
    assert _events(world) == [
        (date_instant(JANUARY), january, False),
        (date_instant(JUNE), june, False),
        (live_since, 1, False),
    ]
    record = world.record()
    assert (record.live, record.previous, record.status) == (1, None, LoadStatus.READY)
    builds = world.build_records()
    assert (builds[june].dated, builds[june].state) == (JUNE, BuildState.LIVE)
    assert (builds[january].dated, builds[january].state) == (JANUARY, BuildState.LIVE)
    assert_version(world, june, B)
    assert_version(world, january, C)
    assert world.report(f"_reports/{DATASET}/{january}.json")["status"] == "READY"
    # And uploading the same objects again builds nothing
    builds_before = set(builds)
    _dated(world, JUNE, B)
    assert set(world.build_records()) == builds_before
    assert_no_surprises(world)


def test_several_dated_folders_at_once_build_one_after_another() -> None:
    world = _world()
    load(world, A)
    for date, rows in ((JUNE, B), (JANUARY, C), ("2026-03-01", A)):
        world.bucket.put_object(f"{DATASET}/_history/{date}/a.tsv", tsv(rows))
    world.upload(f"{DATASET}/_history/{JUNE}/b.tsv", tsv(B[:1]))  # one notification for the lot
    world.settle()
    # The earliest first: each build request takes one folder and asks for the next
    placed = [(e.at, e.version) for e in world.datasets.timeline(DATASET).events if e.version != 1]
    assert [at for at, _ in placed] == [date_instant(d) for d in (JANUARY, "2026-03-01", JUNE)]
    versions = [version or 0 for _, version in placed]
    assert versions == sorted(versions)  # built in date order
    assert world.record().live == 1
    assert_no_surprises(world)


def test_a_date_not_before_the_first_live_version_is_refused_with_a_problem_naming_it() -> None:
    world = _world()
    load(world, A)
    world.clock.advance(2 * 86_400.0)
    _dated(world, "2027-01-16", B)  # the day after the live version went live (2027-01-15T08:00Z)
    state = world.history.dated(DATASET)["2027-01-16"]
    assert state.status == "FAILED"
    assert state.reason is not None
    assert "is not before the dataset's first live version" in state.reason
    report = world.report(f"_reports/{DATASET}/{state.build}.json")
    assert report["status"] == "FAILED"
    assert report["problems"][0]["object"] == f"{DATASET}/_history/2027-01-16/"
    # The live version is untouched, nothing was placed, and the refusal is not tried again and again
    assert world.record().live == 1
    assert [v for _, v, _ in _events(world)] == [1]
    assert world.range_versions() == {1}
    assert_no_surprises(world)


def test_removing_a_dated_folder_removes_its_version() -> None:
    world = _world()
    load(world, A)
    dated = _built(world, JANUARY, B)
    assert world.range_versions() == {1, dated}
    world.remove(f"{DATASET}/_history/{JANUARY}/a.tsv")
    world.settle()
    # Its instants are marked gone at once; its items go after the grace
    assert _events(world)[0][1:] == (dated, True)
    assert world.history.dated(DATASET) == {}
    world.clock.advance(GRACE + 1)
    world.settle()
    assert world.range_versions() == {1}
    assert dated not in world.build_records()
    assert_no_surprises(world)


def test_a_dated_folder_changed_replaces_its_version() -> None:
    world = _world()
    load(world, A)
    first = _built(world, JANUARY, B)
    second = _built(world, JANUARY, C)  # the same date, other rows
    assert second != first
    assert [(v, gone) for _, v, gone in _events(world)] == [(second, False), (1, False)]
    assert_version(world, second, C)
    world.clock.advance(GRACE + 1)
    world.settle()
    assert world.range_versions() == {1, second}
    assert_no_surprises(world)


def test_changed_live_files_go_before_the_dated_folders_which_resume_after() -> None:
    world = _world()
    load(world, A)
    for date, rows in ((JUNE, B), (JANUARY, C)):
        world.bucket.put_object(f"{DATASET}/_history/{date}/a.tsv", tsv(rows))
    load(world, B)  # a reload of the live file, with the dated folders waiting: one notification for all
    states = world.history.dated(DATASET)
    live = world.record().live
    assert live is not None
    assert live > 1
    assert all(state.build is not None and state.build > live for state in states.values())
    assert [e.version for e in world.datasets.timeline(DATASET).events][-2:] == [1, live]
    assert {state.shown(world.datasets.timeline(DATASET)) for state in states.values()} == {"READY"}
    assert_no_surprises(world)


def test_a_folder_removed_then_uploaded_again_is_built_again() -> None:
    world = _world()
    load(world, A)
    first = _built(world, JANUARY, B)
    world.remove(f"{DATASET}/_history/{JANUARY}/a.tsv")
    world.settle()
    # Its gone event stays in the history; it is no live version's, so the same date is not refused
    again = _built(world, JANUARY, C)
    assert again != first
    assert [(v, gone) for _, v, gone in _events(world)] == [(again, False), (1, False)]
    assert_version(world, again, C)
    assert_no_surprises(world)


def test_a_folder_removed_or_changed_while_its_build_writes_never_places_that_build() -> None:
    world = _world()
    load(world, A)
    # Given a dated build whose chunks are held back, and its folder removed meanwhile
    removed = world.record().builds + 1
    world.upload(f"{DATASET}/_history/{JANUARY}/a.tsv", tsv(B))
    world.settle(hold=chunk_of(removed))
    world.remove(f"{DATASET}/_history/{JANUARY}/a.tsv")
    world.settle(hold=chunk_of(removed))
    world.settle()  # the held chunks arrive after the removal
    # Then it was never placed, and its items are deleted
    assert [v for _, v, _ in _events(world)] == [1]
    world.clock.advance(world.settings.writer_timeout + 1)
    world.settle()
    assert world.range_versions() == {1}
    # Given a dated build held back again, and its folder changed meanwhile
    stale = world.record().builds + 1
    world.upload(f"{DATASET}/_history/{JUNE}/a.tsv", tsv(B))
    world.settle(hold=chunk_of(stale))
    world.upload(f"{DATASET}/_history/{JUNE}/a.tsv", tsv(C))
    world.settle(hold=chunk_of(stale))
    fresh = world.history.dated(DATASET)[JUNE].build
    world.settle()  # the stale build's chunks arrive last
    # Then the folder's latest build answers its date, and the stale one is deleted
    assert [(v, gone) for _, v, gone in _events(world)] == [(fresh, False), (1, False)]
    world.clock.advance(world.settings.writer_timeout + 1)
    world.settle()
    assert world.range_versions() == {1, fresh}
    assert_no_surprises(world)
