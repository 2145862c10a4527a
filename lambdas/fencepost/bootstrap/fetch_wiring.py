"""The fetch function wired: its settings, telemetry and the check of the folders' sources (the bucket, the table's
source states, Secrets Manager and the downloads), and the handler: the schedule's round (every source that is due;
nothing while another round holds the lease, then the count of stale datasets as the ``DatasetsStale`` metric), or
one dataset's source at once (``{"dataset": "geo"}``, as the admin module's ``fetch`` asks); then what turned stale
or failing, announced once as change events (``fencepost.sources.announcing``)."""

from __future__ import annotations

import functools
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fencepost.aws.dynamo import Tables, control_client
from fencepost.observability import FETCH_SERVICE, Observability
from fencepost.settings import FetchSettings

if TYPE_CHECKING:
    from fencepost.core.events import ChangeEvents
    from fencepost.sources.announcing import Announcements
    from fencepost.sources.check import Checker
    from fencepost.sources.outcomes import Checked
    from fencepost.sources.staleness import DatasetsAndSources, Stale

MARGIN = 30.0  # seconds kept back from the invocation's time (a tenth of a short one): the check under way is recorded


@dataclass(frozen=True)
class FetchFunction:
    settings: FetchSettings
    obs: Observability
    checker: Checker
    store: DatasetsAndSources | None = None  # the datasets and sources whose staleness each round counts
    events: ChangeEvents | None = None  # where a dataset turning stale and a source turning failing are announced
    announcements: Announcements | None = None  # what was announced (each once)

    def handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        from fencepost.aws.secrets import SecretStore
        from fencepost.sources.outcomes import RoundUnderWay, clear_work, counts

        clear_work(Path(tempfile.gettempdir()))  # what a round killed by its timeout left in this container's /tmp
        checker = self.checker
        checker.secrets = SecretStore()  # secrets read afresh each invocation: a rotated key is used at the next round
        dataset = event.get("dataset") if isinstance(event, dict) else None
        remaining = context.get_remaining_time_in_millis() / 1000
        left = remaining - min(MARGIN, remaining / 10)
        round_left = left if isinstance(dataset, str) else min(left, self.settings.round_seconds)
        checker.deadline = time.monotonic() + round_left
        try:
            results = [checker.check(dataset, force=True)] if isinstance(dataset, str) else checker.check_due()
        except RoundUnderWay as refused:
            self.obs.logger.info("round skipped", extra={"reason": str(refused)})
            self.count_stale()  # (the round under way announces)
            return {"checked": [], "skipped": str(refused)}
        for checked in results:
            if checked.outcome is not None:
                self.obs.logger.info(
                    "source checked",
                    extra={
                        "dataset": checked.dataset,
                        "outcome": checked.outcome.value,
                        "reason": checked.reason,
                        "written": list(checked.written),
                        "deleted": list(checked.deleted),
                    },
                )
        self.obs.metrics.add_counts(counts(results))
        stale = None if isinstance(dataset, str) else self.count_stale()
        self.announce(stale, results)
        shown = [c for c in results if c.outcome is not None or isinstance(dataset, str)]
        checked_list = [
            {"dataset": c.dataset, "outcome": c.outcome and c.outcome.value, "reason": c.reason} for c in shown
        ]
        return {"checked": checked_list}

    def count_stale(self) -> list[Stale] | None:
        """The datasets older than their max age, as the ``DatasetsStale`` metric and, when there are any, a warning
        naming them; None when they could not be read (logged, and no metric: the round's own figures still count)."""
        from aws_lambda_powertools.metrics import MetricUnit

        from fencepost.sources.staleness import METRIC, stale_versions

        if self.store is None:
            return None
        try:
            stale = stale_versions(self.store, time.time())
        except Exception:  # the table unreachable or the read refused: the round is done all the same
            self.obs.logger.warning("stale datasets not counted", exc_info=True)
            return None
        if stale:
            self.obs.logger.warning("datasets stale", extra={"datasets": [each.name for each in stale]})
        self.obs.metrics.add_metric(name=METRIC, unit=MetricUnit.Count, value=len(stale))
        return stale

    def announce(self, stale: list[Stale] | None, checked: list[Checked]) -> None:
        """Datasets turned stale and sources turned failing, as change events, each once; a failure to read or keep
        what was announced is logged, and the round is done all the same."""
        from fencepost.sources.announcing import announce

        if self.events is None or self.announcements is None:
            return
        try:
            announce(self.events, self.announcements, stale=stale, checked=checked)
        except Exception:  # the table unreachable: the next round announces what this one could not
            self.obs.logger.warning("changes not announced", exc_info=True)

    @functools.cached_property
    def handler(self) -> Any:
        return self.obs.wrap(self.handle)


def fetch_function(env: Mapping[str, str] | None = None) -> FetchFunction:
    settings = FetchSettings.from_env(env)
    obs = Observability(service=FETCH_SERVICE, tracing=settings.tracing)
    tables = Tables.connect(control_client(), settings.table.table_name)
    if not settings.events:
        return FetchFunction(settings, obs, source_checker(settings, tables), tables)
    from fencepost.aws.events import change_events, for_telemetry

    count, warn = for_telemetry(obs)
    events = change_events(True, settings.events_source, settings.events_seconds, count=count, warn=warn)
    return FetchFunction(settings, obs, source_checker(settings, tables), tables, events, tables.sources)


def source_checker(settings: FetchSettings, tables: Tables | None = None) -> Checker:
    """What checks the folders' sources: the bucket, the table's source states (in ``tables``, else a client of its
    own), Secrets Manager (each secret read once per ``Checker.secrets``, which a caller may replace) and the
    downloads, bounded by the loader's limits."""
    from fencepost.aws.s3 import make_s3_client
    from fencepost.aws.secrets import SecretStore
    from fencepost.aws.source_folders import SourceBucket
    from fencepost.downloads import Fetcher, FetchPolicy
    from fencepost.sources.check import Checker
    from fencepost.sources.outcomes import CheckRules

    policy = FetchPolicy(
        timeout=settings.timeout,
        attempts=settings.attempts,
        max_wait=settings.max_wait,
        https_only=settings.https_only,
        allow_loopback=settings.allow_loopback,
    )
    return Checker(
        folders=SourceBucket(make_s3_client(), settings.bucket),
        states=(tables if tables is not None else Tables.connect(control_client(), settings.table.table_name)).sources,
        secrets=SecretStore(),
        downloads=Fetcher(policy),
        rules=CheckRules(
            settings.least_every, settings.https_only, settings.limits.max_object_bytes, settings.check_seconds
        ),
        clock=lambda: int(time.time() * 1000),
    )
