"""The issue's creeping feed (``tests.feeds.creeping_feed``) through the loader on fakes: a 60-network blocklist its
source feeds (the unattended gates) is refused at each step, even when the step before was accepted once: by its
growth against what the live version covers, by the change the window already holds (read from the history, where
each switch keeps what its build changed), and by the reserved space it answers for. An attended geo file's ordinary
growth still goes live."""

from __future__ import annotations

import json

import pytest

from fencepost.model import LoadStatus, Problem
from tests.fakes import DATASET, World
from tests.feeds import creeping_feed
from tests.support import V4_FILE, read_tsv

FETCHED = f"{DATASET}/_fetched/list.tsv"  # what the folder's source fetched: its gates are the unattended ones
SETTINGS = f"{DATASET}/_settings.json"
HOUR = 3600.0


def tsv(rows: list[list[str]]) -> str:
    return "".join("\t".join(row) + "\n" for row in rows)


def _release(world: World, rows: list[list[str]], key: str = FETCHED) -> None:
    world.upload(key, tsv(rows))
    world.settle()


def _settings(world: World, settings: dict[str, object]) -> None:
    world.upload(SETTINGS, json.dumps(settings))  # a settings change: the same objects build again
    world.settle()


def _refused_by(world: World) -> str | None:
    record = world.record()
    assert record.load.diff is not None
    return record.load.diff.gate if record.status == LoadStatus.FAILED else None


def test_each_step_of_the_creeping_feed_is_refused_even_when_the_one_before_was_accepted_once() -> None:
    world = World()
    releases = creeping_feed()
    _release(world, releases[0])
    assert (world.record().status, world.record().live) == (LoadStatus.READY, 1)
    # Step 1: twelve /8s and 2000::/5, under 5% of either address space, but 15,729 times what the list covered
    _release(world, releases[1])
    assert (_refused_by(world), world.record().live) == ("max_added_percent", 1)
    # A person accepts it once: it goes live, and the history keeps what it changed
    world.accept()
    world.settle()
    assert (world.record().status, world.record().live) == (LoadStatus.READY, 3)
    assert world.datasets.timeline(DATASET).events[-1].changed == (4.6875, 3.125)
    # Step 2, an hour later: refused by its growth, and the window holds both steps (9.375% of IPv4)
    world.clock.advance(HOUR)
    _release(world, releases[2])
    diff = world.record().load.diff
    assert diff is not None
    assert (_refused_by(world), diff.window_changed_percent_ipv4) == ("max_added_percent", 9.375)
    assert diff.window_changed_percent_ipv6 == pytest.approx(6.25)
    # Without the growth gate, the window's budget refuses it on its own
    _settings(world, {"max_added_percent": None})
    assert _refused_by(world) == "max_window_change_percent"
    assert "changed the answers for 4.688% of the IPv4 address space and this build for 4.688%: 9.375% in all" in (
        world.record().load.problems[0].reason
    )
    world.accept()  # accepted once too
    world.settle()
    assert (world.record().status, world.record().live) == (LoadStatus.READY, 6)
    # Step 3: 0/8, 10/8, 127/8, RFC 1918, fc00::/7 and ::1; with the growth and window gates off, reserved space
    # refuses it on its own, naming the first reserved network
    world.clock.advance(HOUR)
    _settings(world, {"max_added_percent": None, "max_window_change_percent": None})
    _release(world, releases[3])
    assert (_refused_by(world), world.record().live) == ("reserved_space", 6)
    assert (
        world.record()
        .load.problems[0]
        .reason.startswith('the objects answer for 0.0.0.0/8 ("This network", RFC 791, Section 3.2), reserved space')
    )
    diff = world.record().load.diff
    assert diff is not None
    assert diff.reserved == '0.0.0.0/8 ("This network", RFC 791, Section 3.2)'


def test_the_window_forgets_what_went_live_before_it() -> None:
    world = World(folder={"max_added_percent": None, "reserved_space": "allow"})
    releases = creeping_feed()
    _release(world, releases[0])
    _release(world, releases[1])
    assert world.record().live == 2  # 4.69% of IPv4: within the day's budget
    _release(world, releases[2])
    assert (_refused_by(world), world.record().live) == ("max_window_change_percent", 2)
    # A day later the first step has left the window: the same release, built again, goes live
    world.clock.advance(24 * HOUR + 1)
    _settings(world, {"max_added_percent": None, "reserved_space": "allow", "change_window_hours": 24})
    assert (world.record().status, world.record().live) == (LoadStatus.READY, 4)


def test_reserved_space_flagged_goes_live_with_a_warning_naming_it() -> None:
    world = World(folder={"max_added_percent": None, "max_window_change_percent": None, "reserved_space": "flag"})
    releases = creeping_feed()
    _release(world, releases[2])
    _release(world, releases[3])
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 2)
    warning = 'the objects answer for 0.0.0.0/8 ("This network", RFC 791, Section 3.2), reserved space ' + (
        '(reserved_space "flag")'
    )
    assert record.load.problems[0] == Problem("", None, warning)


def test_a_first_release_of_reserved_space_is_refused_too() -> None:
    world = World()
    _release(world, creeping_feed()[3])
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, None)
    assert record.load.diff is not None
    assert (record.load.diff.gate, record.load.diff.baseline) == ("reserved_space", None)


def test_an_attended_geo_file_gaining_one_percent_of_its_ranges_goes_live_and_so_it_would_fed_by_a_source() -> None:
    rows = read_tsv(V4_FILE, 20_000)
    fewer = [row for k, row in enumerate(rows) if k % 100]  # the release before: 1% of the ranges not there yet
    # (iptoasn's routing data answers for space leaked from private networks, 10.5.51.201 among them: a folder its
    # source feeds with it says so, "reserved_space": "flag")
    for key, folder in ((f"{DATASET}/geo.tsv", {}), (f"{DATASET}/_fetched/geo.tsv", {"reserved_space": "flag"})):
        world = World(folder=folder)
        _release(world, fewer, key)
        _release(world, rows, key)
        record = world.record()
        assert (record.status, record.live) == (LoadStatus.READY, 2), record.load.problems[:1]
        assert record.load.diff is not None
        assert 0 < (record.load.diff.added_percent_addresses_ipv4 or 0) < 10
