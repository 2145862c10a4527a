"""The order test files go out to the workers (``tests.support.ordering``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tests.support.ordering import (
    BROWSED,
    SYNTHESIZED,
    UNKNOWN_SECONDS,
    ByScope,
    longest_first,
    read_table,
    scope_of,
    seconds_per_file,
)


@dataclass(frozen=True)
class Item:
    nodeid: str


def test_files_go_out_longest_first_each_keeping_its_tests_in_order() -> None:
    items = [Item(n) for n in ("a.py::t1", "b.py::t1", "a.py::t2", "c.py::t1", "b.py::t2", "d.py::t1")]
    seconds = {"a.py": 5.0, "b.py": 200.0, "c.py": 5.0, "d.py": UNKNOWN_SECONDS - 1}
    ordered = [item.nodeid for item in longest_first(items, seconds)]
    assert ordered == ["b.py::t1", "b.py::t2", "d.py::t1", "a.py::t1", "a.py::t2", "c.py::t1"]


def test_a_file_the_table_does_not_know_goes_out_before_the_short_ones() -> None:
    items = [Item("short.py::t"), Item("new.py::t"), Item("long.py::t")]
    ordered = longest_first(items, {"short.py": 1.0, "long.py": UNKNOWN_SECONDS + 1})
    assert [item.nodeid for item in ordered] == ["long.py::t", "new.py::t", "short.py::t"]


def test_the_files_that_synthesize_the_app_are_one_unit_of_work_and_every_other_file_its_own() -> None:
    synthesizing = [
        "tests/infra/test_stack.py::test_a",
        "tests/infra/test_scanners.py::test_b[x]",
        "tests/integration/test_iam.py::test_c",
        "tests/integration/test_enrichment_job_status.py::test_d",
    ]
    assert {scope_of(nodeid) for nodeid in synthesizing} == {SYNTHESIZED}
    assert scope_of("tests/integration/test_loader.py::test_e") == "tests/integration/test_loader.py"
    assert scope_of("tests/infrastructure_notes.py::test_f") == "tests/infrastructure_notes.py"
    assert ByScope.__new__(ByScope)._split_scope("tests/infra/test_fronts.py::test_g") == SYNTHESIZED


def test_the_browser_files_are_one_unit_of_work() -> None:
    browsing = ["tests/browser/test_console.py::test_a", "tests/browser/test_console_jobs.py::test_b"]
    assert {scope_of(nodeid) for nodeid in browsing} == {BROWSED}
    assert scope_of("tests/browser_notes.py::test_c") == "tests/browser_notes.py"


def test_a_unit_of_several_files_goes_out_by_their_seconds_summed() -> None:
    items = [Item(n) for n in ("long.py::t", "tests/infra/a.py::t", "tests/integration/test_iam.py::t", "mid.py::t")]
    seconds = {"long.py": 100.0, "tests/infra/a.py": 40.0, "tests/integration/test_iam.py": 40.0, "mid.py": 60.0}
    ordered = [item.nodeid for item in longest_first(items, seconds)]
    assert ordered == ["long.py::t", "tests/infra/a.py::t", "tests/integration/test_iam.py::t", "mid.py::t"]


def test_a_junit_report_gives_each_files_seconds_and_the_table_reads_back(tmp_path: Path) -> None:
    report = tmp_path / "times.xml"
    report.write_text(
        "<testsuites><testsuite>"
        '<testcase classname="tests.unit.test_ordering" name="a" time="1.25"/>'
        '<testcase classname="tests.unit.test_ordering" name="b" time="2.5"/>'
        '<testcase classname="tests.unit.test_ordering.Nested" name="c" time="0.05"/>'
        '<testcase classname="tests.e2e.test_walkthroughs" name="d" time="100"/>'
        "</testsuite></testsuites>"
    )
    found = seconds_per_file(report)
    assert found == {"tests/e2e/test_walkthroughs.py": 100.0, "tests/unit/test_ordering.py": 3.8}
    table = tmp_path / "seconds.json"
    table.write_text(json.dumps(found))
    assert read_table(table) == found
    assert read_table(tmp_path / "missing.json") == {}
    table.write_text("[1, 2]")
    assert read_table(table) == {}


def test_the_committed_table_names_only_test_files_that_exist() -> None:
    table = read_table()
    root = Path(__file__).resolve().parents[2]
    assert len(table) > 100
    assert [name for name in table if not (root / name).is_file()] == []
