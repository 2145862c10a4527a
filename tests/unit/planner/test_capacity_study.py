"""The capacity model against the design's study, on the shared IPv4 file, in virtual time: Part 1's four loads with
the study's loader and key layouts within 25% of its figures, Part 2's one-key reads; this project's loader, paced,
near what the table allows with few calls throttled; and ``python -m planner`` as a user runs it."""

from __future__ import annotations

import json
from collections import Counter, deque

import pytest

from capacity.loaders import Invocations
from capacity.modes import parse_mode
from capacity.simulation import Simulation
from capacity.table import TableModel
from planner import __main__ as plan_cli
from planner.loads import CANDIDATES, cheapest_within, plan_mode
from planner.local_build import Build, read_build
from planner.study import study_loads, study_reads, study_rows
from tests.support import SMALL_FILE, V4_FILE


@pytest.fixture(scope="module")
def build() -> Build:
    return read_build([V4_FILE], "geo")


def test_the_study_s_four_loads_and_its_reads_are_reproduced_within_25_percent() -> None:
    loads = study_loads(study_rows(V4_FILE))
    assert [load.study_writes_per_second for load in loads] == [1000, 1250, 3600, 6000]
    for load in loads:
        assert load.writes_per_second == pytest.approx(load.study_writes_per_second, rel=0.25), load.name
    (reads,) = study_reads()
    assert reads.queries_per_second == pytest.approx(9000, rel=0.25)


def _optimum(build: Build, mode: str) -> float:
    """Items a second no loader can beat on this table: its busiest partition's items at 1,000 a second."""
    table = TableModel(parse_mode(mode))
    per: Counter[int] = Counter()
    for item in build.items:
        per[table.keys.index_of(table.keys.find(item.where))] += int(item.units)
    return len(build.items) / (max(per.values()) / 1000)


@pytest.mark.parametrize("mode", ["on-demand-new", "provisioned=10000,then-on-demand"])
def test_our_paced_loader_reaches_85_percent_of_what_the_table_allows_with_few_calls_throttled(
    build: Build, mode: str
) -> None:
    rates = {}
    for policy in ("adaptive", "backoff"):
        sim = Simulation(TableModel(parse_mode(mode)))
        loader = Invocations(deque(build.chunks), workers=10, threads=8, policy=policy)
        loader.start(sim)
        sim.run()
        assert loader.log.written == len(build.items)  # none lost, none twice (each accepted write counted once)
        rates[policy] = (len(build.items) / loader.log.finished, loader.log.throttled_share)
    paced, before = rates["adaptive"], rates["backoff"]
    assert paced[0] >= 0.85 * _optimum(build, mode)
    assert paced[1] <= 0.05
    assert before[1] > 4 * paced[1]  # the loader before pacing retried into the throttle


def test_the_planner_prints_each_mode_and_one_recommendation_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert plan_cli.main([str(SMALL_FILE), "--json", "--within", "5m", "--lookups-per-second", "20000"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["items"] == 1425
    modes = {mode["mode"]: mode for mode in result["modes"]}
    assert set(modes) >= {"on-demand-new", "warm=10000", "provisioned=10000,then-on-demand"}
    for mode in modes.values():
        assert {"seconds", "writes_per_second", "throttled_share", "cost_usd"} <= set(mode)
        assert mode["seconds"] > mode["write_seconds"] > 0
    assert modes["provisioned=10000,then-on-demand"]["cost_usd"] > modes["on-demand-new"]["cost_usd"]
    assert result["recommendation"]["mode"] == "on-demand-new"  # a small file is READY in seconds, for cents
    assert result["recommendation"]["deploy"].startswith("make deploy")
    reads = result["reads"]
    assert 0 < reads["hit_ratio"] < 1
    assert reads["first_throttle_lookups_per_second"] > 0
    assert reads["with_splits_lookups_per_second"] >= reads["max_lookups_per_second"]


def test_the_planner_recommends_the_cheapest_mode_within_the_target_and_its_deploy_arguments(build: Build) -> None:
    plans = [plan_mode(build, mode, workers=10, threads=8) for mode in CANDIDATES]
    slow = plan_cli.recommend(cheapest_within(plans, 3600), plans, 3600)
    assert slow["mode"] == "on-demand-new"
    hurried = plan_cli.recommend(cheapest_within(plans, 100), plans, 100)
    assert hurried["mode"] != "on-demand-new"
    assert "capacity=" in hurried["deploy"]
    impossible = plan_cli.recommend(cheapest_within(plans, 5), plans, 5)
    assert impossible["why"].startswith("no mode loads it within 5s")
