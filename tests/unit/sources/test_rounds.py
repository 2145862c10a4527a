"""A round of the sources against a hostile or broken publisher: every check ends within its time and is recorded,
the round goes on to the next source, the sources checked longest ago come first, and one round runs at a time."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from fencepost.core.sources.schedule import Outcome, SourceState
from fencepost.sources.outcomes import Checked, RoundUnderWay
from tests.bombs import tar_bomb
from tests.publisher import Publisher
from tests.unit.sources.world import RELEASE, World


def test_archive_bombs_fail_with_a_reason_and_the_round_checks_the_next_source(site: Publisher, tmp_path: Path) -> None:
    world = World(site, tmp_path, max_bytes=4 << 20, check_seconds=5)
    site.publish("/bz2.tar.gz", tar_bomb(tmp_path / "bz2", "bz2").read_bytes())  # 8 GiB of zeros, then data.csv
    site.publish("/gz.tar.gz", tar_bomb(tmp_path / "gz", "gz", zeros=2 << 30).read_bytes())  # 2 GiB, ~2 MB
    site.publish("/drop.txt", RELEASE)
    for dataset, path in (("a-bz2", "/bz2.tar.gz"), ("b-gz", "/gz.tar.gz")):
        world.source({"url": site.url(path), "unpack": "tar.gz", "members": ["data.csv"]}, dataset=dataset)
    world.source({"url": site.url("/drop.txt")}, dataset="c-good")
    started = time.monotonic()
    world.checker.deadline = started + 30
    checked = {c.dataset: c for c in world.checker.check_due() if c.outcome is not None}
    assert time.monotonic() - started < 5
    assert {name: c.outcome for name, c in checked.items()} == {
        "a-bz2": Outcome.FAILED,
        "b-gz": Outcome.FAILED,
        "c-good": Outcome.CHANGED,
    }
    assert "reads gzip only, and this file is bzip2: refused" in checked["a-bz2"].reason
    assert "expands to more than 16,777,216 bytes (4 x max_bytes" in checked["b-gz"].reason
    assert world.states.states["a-bz2"].reason == checked["a-bz2"].reason  # recorded
    assert world.folders.objects["c-good/_fetched/drop.txt"] == RELEASE


def test_a_check_that_runs_out_of_its_time_is_recorded_failed_and_the_round_goes_on(
    site: Publisher, tmp_path: Path
) -> None:
    # A publisher sending one header line every 0.2 s (18 s of headers) against a check's 1 s
    world = World(site, tmp_path, check_seconds=1)
    site.publish("/slow.txt", RELEASE, header_trickle=0.2)
    site.publish("/drop.txt", RELEASE)
    world.source({"url": site.url("/slow.txt")}, dataset="a-slow")
    world.source({"url": site.url("/drop.txt")}, dataset="b-good")
    started = time.monotonic()
    world.checker.deadline = started + 30
    checked = {c.dataset: c for c in world.checker.check_due() if c.outcome is not None}
    assert time.monotonic() - started < 2.5
    assert checked["a-slow"].outcome is Outcome.FAILED
    assert checked["a-slow"].reason == (
        f"{site.url('/slow.txt')}: the check ran out of time while waiting for the answer's status and headers: "
        "a check has 1 s (FETCH_CHECK_SECONDS), within the round's"
    )
    assert world.states.states["a-slow"].outcome == "FAILED"
    assert checked["b-good"].outcome is Outcome.CHANGED


def test_a_round_starts_with_the_sources_checked_longest_ago(site: Publisher, tmp_path: Path) -> None:
    world = World(site, tmp_path)
    for dataset in ("aaa", "bbb", "ccc", "ddd"):
        site.publish(f"/{dataset}.txt", RELEASE)
        world.source({"url": site.url(f"/{dataset}.txt")}, dataset=dataset)
    # aaa was checked last; ccc before it; ddd long ago; bbb never (a state without a check: just written)
    for dataset, last in (("aaa", 900_000), ("ccc", 500_000), ("ddd", 100_000), ("bbb", None)):
        world.states.states[dataset] = SourceState(last_checked=last)
    world.checker.check_due()
    assert [seen.path for seen in site.seen] == ["/bbb.txt", "/ddd.txt", "/ccc.txt", "/aaa.txt"]


def test_a_round_past_its_time_leaves_the_rest_for_the_next_which_starts_with_them(
    site: Publisher, tmp_path: Path
) -> None:
    world = World(site, tmp_path, check_seconds=1)
    site.publish("/slow.txt", RELEASE, header_trickle=0.2)
    site.publish("/drop.txt", RELEASE)
    world.source({"url": site.url("/slow.txt")}, dataset="a-slow")
    world.source({"url": site.url("/drop.txt")}, dataset="b-good")
    world.checker.deadline = time.monotonic() + 0.5  # the round's time ends inside the first check
    assert [(c.dataset, c.outcome) for c in world.checker.check_due()] == [("a-slow", Outcome.FAILED)]
    world.now += 1000
    world.checker.deadline = time.monotonic() + 30
    assert next(c.dataset for c in world.checker.check_due()) == "b-good"  # (a-slow is due again, after it)


def test_one_round_at_a_time(site: Publisher, tmp_path: Path) -> None:
    world = World(site, tmp_path)
    site.publish("/drop.txt", RELEASE)
    world.source({"url": site.url("/drop.txt")})
    world.states.lease = ("another round", world.now + 60_000)
    with pytest.raises(RoundUnderWay, match="another round of the sources is under way"):
        world.checker.check_due()
    assert site.seen == []
    world.now += 60_001  # that round's lease expired (it was killed): this one takes it, and gives it back
    world.checker.deadline = time.monotonic() + 30
    assert [c.outcome for c in world.checker.check_due() if c.outcome] == [Outcome.CHANGED]
    assert world.states.lease is None


def test_a_round_with_nothing_due_only_reads_and_a_round_that_finds_work_reads_its_state_again_under_the_lease(
    site: Publisher, tmp_path: Path
) -> None:
    world = World(site, tmp_path)
    site.publish("/drop.txt", RELEASE)
    world.source({"url": site.url("/drop.txt"), "every": "1h"})
    world.checker.deadline = time.monotonic() + 30
    assert [c.outcome for c in world.checker.check_due() if c.dataset == "drop"] == [Outcome.CHANGED]
    assert (world.states.tries, world.states.lease) == (1, None)
    # Not due for an hour: a round writes nothing, not even the lease, so another round's lease does not stop it
    world.now += 1000
    world.states.lease = ("another round", world.now + 60_000)
    assert [(c.outcome, c.reason) for c in world.checker.check_due() if c.dataset == "drop"] == [(None, "not due")]
    assert world.states.tries == 1
    # Due, while the other round holds the lease: this one checks nothing
    world.now += 3_600_000
    world.states.lease = ("another round", world.now + 60_000)
    with pytest.raises(RoundUnderWay):
        world.checker.check_due()
    assert len(site.seen) == 1
    # Due when read, but checked by another round before this one took the lease: the state read again says so
    world.states.lease = None
    take = world.states.take_round

    def after_another_round(holder: str, now: int, until: int) -> bool:
        state = world.states.states["drop"]
        world.states.states["drop"] = dataclasses.replace(state, last_checked=now, next_check=now + 3_600_000)
        return take(holder, now, until)

    world.states.take_round = after_another_round  # type: ignore[method-assign]
    assert [(c.outcome, c.reason) for c in world.checker.check_due() if c.dataset == "drop"] == [(None, "not due")]
    assert (len(site.seen), world.states.lease) == (1, None)  # nothing fetched, the lease given back


def test_a_check_on_demand_while_a_round_runs_takes_no_lease_and_leaves_the_round_s_alone(
    site: Publisher, tmp_path: Path
) -> None:
    world = World(site, tmp_path)
    site.publish("/drop.txt", RELEASE)
    site.publish("/other.txt", RELEASE)
    world.source({"url": site.url("/drop.txt"), "every": "1h"})
    world.checker.deadline = time.monotonic() + 30
    world.checker.check_due()
    world.now += 1000
    tries = world.states.tries
    # While the round reads (nothing due: it takes no lease), a source added since its listing is checked on demand
    # on the same checker
    read = world.folders.read_source
    on_demand: list[Checked] = []

    def read_and_check_on_demand(dataset: str) -> tuple[str, bytes] | None:
        world.folders.read_source = read  # type: ignore[method-assign]
        world.source({"url": site.url("/other.txt"), "every": "1h"}, dataset="other")
        on_demand.append(world.checker.check("other", force=True))
        return read(dataset)

    world.folders.read_source = read_and_check_on_demand  # type: ignore[method-assign]
    world.checker.check_due()
    assert [c.outcome for c in on_demand] == [Outcome.CHANGED]
    assert (world.states.tries, world.states.lease) == (tries, None)  # no lease taken, by the round or the check
