"""The stale datasets a fetch round counts: those serving a version older than their max age (their own, or three of
their source's intervals), never a retired one or one serving nothing; a failed read writes no metric and fails
nothing."""

from __future__ import annotations

from typing import Any

import pytest

from fencepost.bootstrap.fetch_wiring import FetchFunction
from fencepost.core.sources.schedule import SourceState
from fencepost.model import DatasetRecord
from fencepost.observability import FETCH_SERVICE, Observability
from fencepost.settings import FetchSettings
from fencepost.sources.staleness import METRIC, stale_datasets

BUILT = "2026-11-20T00:00:00+00:00"
BUILT_EPOCH = 1_795_132_800.0
HOUR, DAY = 3600, 86_400


class Store:
    def __init__(self, *records: DatasetRecord, sources: dict[str, SourceState] | None = None) -> None:
        self.records, self.sources, self.fail = list(records), sources or {}, False

    def list_datasets(self) -> list[DatasetRecord]:
        if self.fail:
            raise ConnectionError("the table cannot be reached")
        return self.records

    def list_source_states(self) -> dict[str, SourceState]:
        return self.sources


def record(name: str, **fields: Any) -> DatasetRecord:
    return DatasetRecord(name=name, **{"live": 1, "loaded_at": BUILT, **fields})


def test_only_datasets_serving_a_version_older_than_their_max_age_are_stale() -> None:
    store = Store(
        record("old", max_age=DAY),
        record("young", max_age=3 * DAY),
        record("fed"),
        record("retired", max_age=DAY, retired=True),
        record("nothing", max_age=DAY, live=None),
        record("plain"),
        sources={"fed": SourceState(every=HOUR), "young": SourceState(every=HOUR)},
    )
    # Two days after the build: "old" (1 day) and "fed" (3 hours, from its source) are stale; "young"'s own 3 days win
    assert stale_datasets(store, BUILT_EPOCH + 2 * DAY) == ["fed", "old"]
    assert stale_datasets(store, BUILT_EPOCH + 3 * HOUR) == []


def test_a_failed_read_writes_no_metric_and_fails_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_NAME", "t")
    monkeypatch.setenv("BUCKET_NAME", "b")
    store = Store(record("old", max_age=1))
    function = FetchFunction(
        FetchSettings.from_env(),
        Observability(service=FETCH_SERVICE, tracing=False),
        None,  # type: ignore[arg-type]  # no source is checked here
        store,
    )
    function.count_stale()
    assert function.obs.metrics.metric_set[METRIC]["Value"] == [1.0]
    function.obs.metrics.clear_metrics()
    store.fail = True
    function.count_stale()
    assert METRIC not in function.obs.metrics.metric_set
