"""Metrics: each handler's EMF lines carry its own service, and the local stack keeps them off the terminal.

The local stack runs the lookup and the loader handlers in one process, in threads; on Lambda each runs alone. The
loader here is a stand-in with the loader's service and a metric of its own: what matters is two handlers, each
with its ``Observability``, invoked in one process, sometimes one while the other is running.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.metrics import MetricUnit

from fencepost.bootstrap.lookup_wiring import LookupFunction, lookup_function
from fencepost.observability import Observability
from local.config import StackConfig
from tests.support import LambdaContext, event, metric_totals

LOOKUP_METRICS = {"Lookups", "Found", "NotFound", "Errors"}
LOADER_METRICS = {"ItemsWritten"}
SERVICES = {"fencepost-lookup": LOOKUP_METRICS, "fencepost-loader": LOADER_METRICS}
ROUNDS = 120  # more than the 100 values an EMF line may hold for one metric

Handler = Callable[[dict[str, Any], Any], Any]


def _configure(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> tuple[LookupFunction, Handler]:
    """The lookup handler and a loader stand-in, both created after ``env`` is set, as the local stack does."""
    for name in ("METRICS_FILE", "POWERTOOLS_METRICS_DISABLED", "POWERTOOLS_DEV"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    lookup = lookup_function()
    obs = Observability(service="fencepost-loader", tracing=False)

    def handle(ev: dict[str, Any], _context: Any) -> dict[str, Any]:
        obs.metrics.add_metric(name="ItemsWritten", unit=MetricUnit.Count, value=ev["items"])
        if ev.get("lookup_meanwhile"):  # another thread's lookup runs while this invocation does
            _lookup(lookup)
        return {}

    return lookup, obs.wrap(handle)


def _lookup(lookup: LookupFunction) -> None:
    assert lookup.handler(event("lookup-get"), LambdaContext())["statusCode"] == 200


def _run(lookup: LookupFunction, loader: Handler) -> None:
    """Lookups and loads, interleaved; every third load sees a lookup run while it is running."""
    for number in range(ROUNDS):
        _lookup(lookup)
        loader({"items": 10, "lookup_meanwhile": number % 3 == 0}, LambdaContext())


def _emf_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{") and '"_aws"' in line]


def _assert_own_service(blobs: list[dict[str, Any]]) -> None:
    assert blobs
    for blob in blobs:
        names = {metric["Name"] for d in blob["_aws"]["CloudWatchMetrics"] for metric in d["Metrics"]}
        assert names <= SERVICES[blob["service"]], f"{sorted(names)} under service {blob['service']}"
        for name in names:
            values = blob[name] if isinstance(blob[name], list) else [blob[name]]
            assert len(values) <= 100


def _assert_totals(totals: dict[str, float]) -> None:
    lookups = ROUNDS + len(range(0, ROUNDS, 3))
    assert (totals["Lookups"], totals["Found"]) == (lookups, lookups)
    assert totals["ItemsWritten"] == 10 * ROUNDS


def test_the_local_stack_without_metrics_writes_none_anywhere(
    lookup_handler: LookupFunction,  # noqa: ARG001 - the table and the datasets it sets up
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Given the handlers configured as an ephemeral local stack configures them (metrics off)
    lookup, loader = _configure(monkeypatch, StackConfig.ephemeral().metrics_environment())
    capsys.readouterr()

    # When more lookups and loads run than one EMF line holds values
    _run(lookup, loader)

    # Then nothing EMF-shaped reaches standard output (Powertools printed full 100-value sets even when disabled)
    out = capsys.readouterr().out
    assert _emf_lines(out) == []
    assert '"_aws"' not in out


def test_the_local_stack_keeps_metrics_in_its_data_dir_each_with_its_own_service(
    lookup_handler: LookupFunction,  # noqa: ARG001
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    # Given the handlers configured as `make run` configures them (metrics kept, a data dir)
    config = StackConfig(data_dir=tmp_path)
    lookup, loader = _configure(monkeypatch, config.metrics_environment())
    capsys.readouterr()

    # When lookups and loads run in one process, some lookups while a load is running
    _run(lookup, loader)

    # Then the terminal gets no metric line; var/metrics.log gets them all, each under its own handler's service
    assert '"_aws"' not in capsys.readouterr().out
    logged = (tmp_path / "metrics.log").read_text()
    blobs = _emf_lines(logged)
    assert len(blobs) == len(logged.splitlines())
    _assert_own_service(blobs)
    assert {blob["service"] for blob in blobs} == set(SERVICES)
    _assert_totals(metric_totals(logged))


def test_on_lambda_every_invocation_writes_its_own_line_to_standard_output(
    lookup_handler: LookupFunction,  # noqa: ARG001
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Given the handlers as Lambda runs them (no metrics configuration at all)
    lookup, loader = _configure(monkeypatch, {})
    capsys.readouterr()

    # When they run in one process, some lookups while a load is running
    _run(lookup, loader)

    # Then each invocation flushed one EMF line to standard output, with its own handler's service and metrics
    blobs = _emf_lines(capsys.readouterr().out)
    assert len(blobs) == ROUNDS + ROUNDS + len(range(0, ROUNDS, 3))
    _assert_own_service(blobs)
    _assert_totals(metric_totals("\n".join(json.dumps(blob) for blob in blobs)))


def test_a_metric_with_more_values_than_one_line_holds_is_split_and_none_is_lost(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("METRICS_FILE", "POWERTOOLS_METRICS_DISABLED", "POWERTOOLS_DEV"):
        monkeypatch.delenv(name, raising=False)
    # Given a handler as Lambda runs it, that adds one metric 250 times in one invocation
    obs = Observability(service="fencepost-loader", tracing=False)

    def handle(_event: dict[str, Any], _context: Any) -> None:
        for _ in range(250):
            obs.metrics.add_metric(name="ItemsWritten", unit=MetricUnit.Count, value=1)

    capsys.readouterr()

    # When it runs
    obs.wrap(handle)({}, LambdaContext())

    # Then the values arrive on standard output in lines of at most 100 (EMF's limit), all of them, as Lambda's do
    blobs = _emf_lines(capsys.readouterr().out)
    assert len(blobs) == 3
    assert all(len(blob["ItemsWritten"]) <= 100 for blob in blobs)
    assert sum(sum(blob["ItemsWritten"]) for blob in blobs) == 250
    assert {blob["service"] for blob in blobs} == {"fencepost-loader"}


def test_the_deployed_lookup_writes_one_line_per_interval_that_lambdas_warn_filter_keeps(
    lookup_handler: LookupFunction,  # noqa: ARG001
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Given the lookup function as the template deploys it: counts written every 60 s, Lambda filtering at WARN
    lookup, _ = _configure(monkeypatch, {"METRICS_INTERVAL_SECONDS": "60", "AWS_LAMBDA_LOG_LEVEL": "WARN"})
    start = lookup.obs.metrics.clock()  # the interval started when the function was imported
    now = [start]
    lookup.obs.metrics.clock = lambda: now[0]
    capsys.readouterr()

    # When 50 lookups come within the minute, then one more after it
    for second in range(50):
        now[0] = start + second
        _lookup(lookup)
    within = capsys.readouterr().out
    now[0] = start + 61
    _lookup(lookup)

    # Then nothing was written for the 50, and one line holds all 51, at the level Lambda's filter keeps
    assert _emf_lines(within) == []
    (blob,) = _emf_lines(capsys.readouterr().out)
    assert blob["level"] == "WARN"
    assert (blob["Lookups"], blob["Found"]) == ([51.0], [51.0])
