"""What a check of a source gives back (``Checked``), the rules every check follows (``CheckRules``), a round's
figures as metrics (``counts``), and the work folders a check leaves behind when its function is killed."""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from fencepost.core.sources.schedule import Outcome

NO_SOURCE: Final = "the folder has no _source.json"
WORK_PREFIX: Final = "fetch-"  # a check's folder for its downloads (a round killed by its timeout leaves it)
FAILING: Final = 3  # failed checks in a row that make a source failing (what its alarm watches)


@dataclass(frozen=True, slots=True)
class CheckRules:
    least_every: int = 300  # seconds: the shortest interval a source may ask
    https_only: bool = True
    max_bytes: int = 512 << 20  # the loader's largest object: no download or member may be larger
    check_seconds: float = 120.0  # the longest one check may take (its downloads, checksums and unpacking)


class RoundUnderWay(Exception):
    """Another round of the sources holds the lease: this one checks nothing."""


@dataclass(frozen=True, slots=True)
class Checked:
    dataset: str
    outcome: Outcome | None  # None: not due (or no source)
    reason: str = ""
    written: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    failing: bool = False  # FAILING checks or more failed in a row
    stale: bool = False  # no check found the folder current for three intervals

    def shown(self) -> dict[str, Any]:
        """As logs and the fetch function's answer show it."""
        outcome = None if self.outcome is None else self.outcome.value
        return {
            "dataset": self.dataset,
            "outcome": outcome,
            "reason": self.reason,
            "written": list(self.written),
            "deleted": list(self.deleted),
        }


def counts(results: list[Checked]) -> dict[str, int]:
    """A round's figures, as metrics: checks by outcome, and the sources the alarms watch."""
    found = {f"SourceChecks{outcome.value.title()}": 0 for outcome in Outcome}
    for checked in results:
        if checked.outcome is not None:
            found[f"SourceChecks{checked.outcome.value.title()}"] += 1
    found["SourcesFailing"] = sum(checked.failing for checked in results)
    found["SourcesStale"] = sum(checked.stale for checked in results)
    return found


def clear_work(directory: Path, older_than: float = 900.0) -> None:
    """Remove what checks killed by a timeout left in ``directory`` (their downloads): folders untouched for longer
    than the function may run, so a check under way elsewhere (``make fetch`` beside ``make run``) keeps its own."""
    for leftover in directory.glob(f"{WORK_PREFIX}*"):
        with contextlib.suppress(OSError):
            if time.time() - leftover.stat().st_mtime > older_than:
                shutil.rmtree(leftover, ignore_errors=True)
