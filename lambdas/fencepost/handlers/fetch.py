"""Entry point of the fetch function: the schedule's round (every source that is due), or one dataset's source at
once (``{"dataset": "geo"}``, as ``make fetch`` and the admin module ask)."""

from __future__ import annotations

import time
from typing import Any

from fencepost.aws.dynamo import Tables, make_client
from fencepost.aws.s3 import make_s3_client
from fencepost.aws.secrets import SecretStore
from fencepost.aws.source_folders import SourceBucket
from fencepost.downloads import Fetcher, FetchPolicy
from fencepost.observability import Observability
from fencepost.settings import FetchSettings
from fencepost.sourcing.check import Checker, CheckRules, counts

settings = FetchSettings.from_env()
obs = Observability(service="fencepost-fetch", tracing=settings.tracing)
tables = Tables.connect(make_client(retries=3, read_timeout=10), settings.table.table_name)
folders = SourceBucket(make_s3_client(), settings.bucket)
fetcher = Fetcher(
    FetchPolicy(
        timeout=settings.timeout,
        attempts=settings.attempts,
        max_wait=settings.max_wait,
        https_only=settings.https_only,
    )
)
rules = CheckRules(
    least_every=settings.least_every, https_only=settings.https_only, max_bytes=settings.limits.max_object_bytes
)


def _handle(event: dict[str, Any], _context: Any) -> dict[str, Any]:
    checker = Checker(  # a secret store per invocation: a rotated key is read again at the next round
        folders=folders,
        states=tables.sources,
        secrets=SecretStore(),
        downloads=fetcher,
        rules=rules,
        clock=lambda: int(time.time() * 1000),
    )
    dataset = event.get("dataset") if isinstance(event, dict) else None
    results = [checker.check(dataset, force=True)] if isinstance(dataset, str) else checker.check_due()
    for checked in results:
        if checked.outcome is not None:
            obs.logger.info(
                "source checked",
                extra={
                    "dataset": checked.dataset,
                    "outcome": checked.outcome.value,
                    "reason": checked.reason,
                    "written": list(checked.written),
                    "deleted": list(checked.deleted),
                },
            )
    obs.metrics.add_counts(counts(results))
    return {
        "checked": [
            {"dataset": c.dataset, "outcome": c.outcome.value if c.outcome else None, "reason": c.reason}
            for c in results
            if c.outcome is not None or isinstance(dataset, str)
        ]
    }


handler = obs.wrap(_handle)
