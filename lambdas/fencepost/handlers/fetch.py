"""Entry point of the fetch function: the schedule's round (every source that is due; nothing while another round
holds the lease), or one dataset's source at once (``{"dataset": "geo"}``, as the admin module's ``fetch`` asks);
wired in ``fencepost.bootstrap``."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from fencepost.aws.secrets import SecretStore
from fencepost.bootstrap import source_checker
from fencepost.observability import FETCH_SERVICE, Observability
from fencepost.settings import FetchSettings
from fencepost.sources.outcomes import RoundUnderWay, clear_work, counts

settings = FetchSettings.from_env()
obs = Observability(service=FETCH_SERVICE, tracing=settings.tracing)
checker = source_checker(settings)


MARGIN = 30.0  # seconds kept back from the invocation's time (a tenth of a short one): the check under way is recorded


def _handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    clear_work(Path(tempfile.gettempdir()))  # what a round killed by its timeout left in this container's /tmp
    checker.secrets = SecretStore()  # secrets read afresh each invocation: a rotated key is used at the next round
    dataset = event.get("dataset") if isinstance(event, dict) else None
    remaining = context.get_remaining_time_in_millis() / 1000
    left = remaining - min(MARGIN, remaining / 10)
    checker.deadline = time.monotonic() + (left if isinstance(dataset, str) else min(left, settings.round_seconds))
    try:
        results = [checker.check(dataset, force=True)] if isinstance(dataset, str) else checker.check_due()
    except RoundUnderWay as refused:
        obs.logger.info("round skipped", extra={"reason": str(refused)})
        return {"checked": [], "skipped": str(refused)}
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
    shown = [c for c in results if c.outcome is not None or isinstance(dataset, str)]
    return {
        "checked": [{"dataset": c.dataset, "outcome": c.outcome and c.outcome.value, "reason": c.reason} for c in shown]
    }


handler = obs.wrap(_handle)
