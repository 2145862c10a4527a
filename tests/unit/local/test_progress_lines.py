"""The lines ``make run`` prints for each dataset state, including a failed load's first problem."""

from __future__ import annotations

from fencepost.model import DatasetRecord, LoadState, LoadStatus, Phase, Problem
from local.__main__ import progress_line


def test_a_failed_load_names_its_first_problem_and_the_version_still_live() -> None:
    load = LoadState(version=3, phase=Phase.FAILED, problems=[Problem("geo/bad.csv", 2, "not UTF-8 text")])
    load.report = "_reports/geo/3.json"
    record = DatasetRecord("geo", live=2, status=LoadStatus.FAILED, load=load)
    line = progress_line(record)
    assert line == "FAILED build 3: not UTF-8 text (live version: 2; report: _reports/geo/3.json)"


def test_each_state_has_its_line() -> None:
    queued = DatasetRecord("geo", status=LoadStatus.LOADING)
    writing = DatasetRecord(
        "geo", status=LoadStatus.LOADING, load=LoadState(version=1, phase=Phase.WRITING, rows_read=5)
    )
    ready = DatasetRecord("geo", live=1, status=LoadStatus.READY, ranges=5)
    retired = DatasetRecord("geo", retired=True)
    assert progress_line(queued).startswith("LOADING: a change was seen")
    assert progress_line(writing) == "LOADING build 1: writing, 5 rows read, 0 items written"
    assert progress_line(ready) == "READY version 1, 5 ranges"
    assert progress_line(retired) == "retired (its folder is empty)"
