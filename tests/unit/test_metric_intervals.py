"""Metric lines per interval (``fencepost.observability.HandlerMetrics``): counts added up, one line per interval.

The lookup function writes its counts once a minute per container, not once per lookup, and tags each line with
Lambda's application log level so that Lambda's log-level filter keeps it.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from typing import Any

import pytest
from aws_lambda_powertools.metrics import MetricUnit

from fencepost.observability import HandlerMetrics, Observability
from tests.support import metric_totals


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _metrics(clock: Clock, *, interval: float, level: str | None = None) -> HandlerMetrics:
    return HandlerMetrics(
        namespace="Fencepost", service="fencepost-lookup", interval=interval, level=level, clock=clock
    )


def _invoke(metrics: HandlerMetrics, lookups: int, found: int) -> None:
    metrics.add_metric(name="Lookups", unit=MetricUnit.Count, value=lookups)
    metrics.add_metric(name="Found", unit=MetricUnit.Count, value=found)
    metrics.flush_metrics()


def _lines(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines()]


def test_counts_are_added_up_and_written_once_the_interval_has_passed() -> None:
    clock = Clock()
    metrics = _metrics(clock, interval=60)
    out = io.StringIO()
    with redirect_stdout(out):
        for second in range(59):
            clock.now = 1000.0 + second
            _invoke(metrics, 2, 1)
        assert out.getvalue() == ""  # 59 invocations, no line yet
        clock.now = 1060.0
        _invoke(metrics, 2, 1)

    (line,) = _lines(out.getvalue())
    assert (line["Lookups"], line["Found"]) == ([120.0], [60.0])  # one value each, the sum of 60 invocations
    assert metrics.lines == 1


def test_the_next_interval_starts_from_zero_and_nothing_is_counted_twice() -> None:
    clock = Clock()
    metrics = _metrics(clock, interval=60)
    out = io.StringIO()
    with redirect_stdout(out):
        for step in range(300):  # 300 invocations, one every second: five intervals
            clock.now = 1000.0 + step + 1
            _invoke(metrics, 1, 0)

    assert len(_lines(out.getvalue())) == 5
    assert metric_totals(out.getvalue())["Lookups"] == 300


def test_interval_zero_writes_one_line_per_invocation_with_every_value() -> None:
    clock = Clock()
    metrics = _metrics(clock, interval=0)
    out = io.StringIO()
    with redirect_stdout(out):
        for _ in range(3):
            _invoke(metrics, 2, 1)

    assert [line["Lookups"] for line in _lines(out.getvalue())] == [[2.0], [2.0], [2.0]]


def test_other_units_keep_their_values_within_an_interval() -> None:
    clock = Clock()
    metrics = _metrics(clock, interval=60)
    out = io.StringIO()
    with redirect_stdout(out):
        for seconds in (1.5, 2.5):
            metrics.add_metric(name="LoadSeconds", unit=MetricUnit.Seconds, value=seconds)
            metrics.flush_metrics()
        clock.now += 60
        metrics.flush_metrics()

    (line,) = _lines(out.getvalue())
    assert line["LoadSeconds"] == [1.5, 2.5]  # a time is not a count: not added up


@pytest.mark.parametrize("level", ["WARN", "ERROR"])
def test_each_line_carries_lambdas_level_so_its_filter_keeps_it(level: str) -> None:
    clock = Clock()
    metrics = _metrics(clock, interval=0, level=level)
    out = io.StringIO()
    with redirect_stdout(out):
        _invoke(metrics, 1, 1)

    (line,) = _lines(out.getvalue())
    assert line["level"] == level
    assert line["_aws"]["CloudWatchMetrics"][0]["Metrics"]  # still an EMF document
    assert "level" not in {metric["Name"] for metric in line["_aws"]["CloudWatchMetrics"][0]["Metrics"]}


def test_observability_takes_the_level_from_lambdas_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_LAMBDA_LOG_LEVEL", "WARN")
    assert Observability(service="fencepost-lookup", tracing=False, metrics_interval=60).metrics.level == "WARN"
    monkeypatch.delenv("AWS_LAMBDA_LOG_LEVEL")
    assert Observability(service="fencepost-lookup", tracing=False).metrics.level is None


def test_disabled_metrics_still_count_their_intervals_and_write_nothing() -> None:
    clock = Clock()
    metrics = HandlerMetrics(namespace="Fencepost", service="s", enabled=False, interval=60, clock=clock)
    out = io.StringIO()
    with redirect_stdout(out):
        _invoke(metrics, 1, 1)
        clock.now += 61
        _invoke(metrics, 1, 1)

    assert out.getvalue() == ""
    assert metrics.lines == 1


@pytest.mark.parametrize("interval", [0.0, 60.0])
def test_counts_given_together_are_what_each_given_alone_would_be(interval: float) -> None:
    """The lookup gives its three counts in one call: the lines are those of three ``add_metric`` calls."""
    lines = {}
    for together in (False, True):
        clock = Clock()
        metrics = _metrics(clock, interval=interval)
        out = io.StringIO()
        with redirect_stdout(out):
            for step in range(70):
                clock.now = 1000.0 + step
                counts = {"Lookups": 3, "Found": step % 2, "NotFound": 3 - step % 2}
                if together:
                    metrics.add_counts(counts)
                else:
                    for name, value in counts.items():
                        metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
                metrics.flush_metrics()
        lines[together] = [{k: v for k, v in line.items() if k != "_aws"} for line in _lines(out.getvalue())]
    assert lines[True] == lines[False]
    # interval 60: one line at the 61st call (steps 0 to 60), the rest still being added up
    assert sum(sum(line["Found"]) for line in lines[True]) == (35 if interval == 0 else 30)
    assert len(lines[True]) == (70 if interval == 0 else 1)
