"""One Powertools set-up shared by the handlers: JSON logs with correlation ids, EMF metrics, optional tracing.

The Tracer is created only when tracing is switched on: creating it imports ``aws_xray_sdk``, which costs
about 100 ms of cold start even when tracing is disabled.

Metrics are Powertools' CloudWatch EMF metrics, but each handler keeps its own: Powertools' ``Metrics`` shares its
metric set and dimensions at class level across every instance in a process. On Lambda a process runs one handler,
so that never shows; the local stack runs the lookup and the loader handlers in one process (in threads), where the
shared set mixed their metrics and stamped them with whichever ``service`` was serialized first. Two more traps of
the shared set, with ``POWERTOOLS_METRICS_DISABLED=true``: a disabled flush neither prints nor clears it, and a
metric reaching 100 values is printed regardless of the switch, so a disabled process printed 100-value blobs.

Configuration, read once when the handler module creates its ``Observability`` (like every other setting):

- ``POWERTOOLS_METRICS_DISABLED`` (or ``POWERTOOLS_DEV``, Powertools' rules): metrics are counted, never written;
- ``METRICS_FILE``: EMF lines are appended to this file instead of standard output (the local stack's
  ``var/metrics.log``); unset on Lambda, where the EMF lines go to standard output;
- ``AWS_LAMBDA_LOG_LEVEL`` (set by Lambda when the function's application log level is filtered): each EMF line
  carries this level, so that the filter keeps it. Lambda gives a line without a ``level`` the level INFO, so with
  the lookup function's WARN every metric line would otherwise be dropped, and its metrics with it.

Each handler chooses how often its metrics are written (``interval``): the loader writes them at the end of every
invocation; the lookup function adds up its counts and writes one line per container every ``METRICS_INTERVAL_SECONDS``
(at the end of the first invocation after the interval), instead of one line per lookup. The counts of a container's
last interval are lost when Lambda stops the container before its next invocation.
"""

from __future__ import annotations

import json
import os
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.metrics import EphemeralMetrics, MetricResolution, MetricUnit, SchemaValidationError
from aws_lambda_powertools.metrics.functions import is_metrics_disabled
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.constants import MAX_METRICS

NAMESPACE = "Fencepost"
# Each function's service name: its logs' and metrics' "service", and the dimension its alarms watch
LOOKUP_SERVICE = "fencepost-lookup"
LOADER_SERVICE = "fencepost-loader"
FETCH_SERVICE = "fencepost-fetch"
TABLES_SERVICE = "fencepost-tables"
METRICS_FILE_ENV = "METRICS_FILE"
LAMBDA_LOG_LEVEL_ENV = "AWS_LAMBDA_LOG_LEVEL"

# Routes that add no metric (dataset listings, the OpenAPI document) are normal, not a warning.
warnings.filterwarnings("ignore", message="No application metrics to publish")

Handler = Callable[[dict[str, Any], Any], Any]

# Handlers of one process that write to the same file write whole lines, one at a time.
_FILE_LOCK = threading.Lock()


class HandlerMetrics(EphemeralMetrics):
    """Powertools' EMF metrics with state of their own (``EphemeralMetrics``) and one place to write them.

    ``sink`` None writes to standard output (looked up at each write, as ``print`` does); a path appends there.
    Disabled metrics are still validated, then dropped at each flush. Calls may come from several threads at once
    (the local stack runs invocations in threads), so the metric set is changed under a lock.

    ``interval`` 0 writes the set at every flush (the end of each invocation). Above 0, counts of the same name are
    added up into one value, and a flush writes only when ``interval`` seconds have passed since the last write.
    ``level``: the ``level`` each line carries (None: none).
    """

    def __init__(
        self,
        *,
        namespace: str,
        service: str,
        sink: Path | None = None,
        enabled: bool = True,
        interval: float = 0.0,
        level: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(namespace=namespace, service=service)
        self.sink = sink
        self.enabled = enabled
        self.interval = interval
        self.level = level
        self.lines = 0  # lines written (or, disabled, that would have been)
        self.clock = clock
        self._written_at = clock()
        self._lock = threading.Lock()

    def add_metric(
        self, name: str, unit: MetricUnit | str, value: float, resolution: MetricResolution | int = 60
    ) -> None:
        with self._lock:
            held = self.metric_set.get(name.strip())
            if held is not None and self.interval > 0 and held["Unit"] == MetricUnit.Count.value:
                held["Value"][-1] += value  # a count: one running total per interval
                return
            full = (
                len(held["Value"]) >= MAX_METRICS - 1 if held is not None else len(self.metric_set) >= MAX_METRICS - 1
            )
            if full:
                # EMF takes at most 100 metrics, and 100 values per metric, in one line. Powertools prints a full set
                # itself, to standard output and even when disabled; the set is written here one value earlier.
                self._write()
                self.metric_set.clear()
            super().add_metric(name=name, unit=unit, value=value, resolution=resolution)

    def add_counts(self, counts: Mapping[str, int]) -> None:
        """Several counts at once (the lookup's per request): added up under one taking of the lock when an
        interval is set, as ``add_metric`` does each."""
        with self._lock:
            if self.interval > 0:
                held = [self.metric_set.get(name) for name in counts]
                if all(h is not None and h["Unit"] == MetricUnit.Count.value for h in held):
                    for h, value in zip(held, counts.values(), strict=True):
                        h["Value"][-1] += value  # type: ignore[index]
                    return
        for name, value in counts.items():
            self.add_metric(name=name, unit=MetricUnit.Count, value=value)

    def flush_metrics(self, raise_on_empty_metrics: bool = False) -> None:
        with self._lock:
            if raise_on_empty_metrics and not self.metric_set:
                raise SchemaValidationError("Must contain at least one metric.")
            if self.interval > 0 and self.clock() - self._written_at < self.interval:
                return  # keep adding up until the interval has passed
            if self.metric_set:
                self._write()
            self.clear_metrics()

    def line(self) -> str:
        """The metric set as one EMF line, with its ``level``."""
        blob: dict[str, Any] = dict(self.serialize_metric_set())
        if self.level is not None:
            blob["level"] = self.level
        return json.dumps(blob, separators=(",", ":"))

    def _write(self) -> None:
        self._written_at = self.clock()
        self.lines += 1
        if not self.enabled:
            return
        line = self.line()
        if self.sink is None:
            print(line)
            return
        with _FILE_LOCK, self.sink.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


class Observability:
    def __init__(self, *, service: str, tracing: bool, metrics_interval: float = 0.0) -> None:
        self.logger = Logger(service=service)
        metrics_file = os.environ.get(METRICS_FILE_ENV, "").strip()
        self.metrics = HandlerMetrics(
            namespace=NAMESPACE,
            service=service,
            sink=Path(metrics_file) if metrics_file else None,
            enabled=not is_metrics_disabled(),
            interval=metrics_interval,
            level=os.environ.get(LAMBDA_LOG_LEVEL_ENV, "").strip() or None,
        )
        self.tracer: Any = None
        if tracing:
            from aws_lambda_powertools import Tracer

            self.tracer = Tracer(service=service)

    def wrap(self, handler: Handler, *, correlation_id_path: str | None = None, private: bool = False) -> Handler:
        """Wrap a Lambda entry point with the logger context, metrics flushing and, if on, tracing.

        ``private``: responses and errors (which name looked-up addresses) are not sent to X-Ray as metadata.
        """
        wrapped: Handler = self.logger.inject_lambda_context(correlation_id_path=correlation_id_path)(handler)
        wrapped = self.metrics.log_metrics(raise_on_empty_metrics=False)(wrapped)
        if self.tracer is not None:
            capture = None if not private else False  # None: Powertools' default (captured)
            wrapped = self.tracer.capture_lambda_handler(wrapped, capture_response=capture, capture_error=capture)
        return wrapped
