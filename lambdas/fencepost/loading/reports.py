"""Load reports: one JSON document per build under ``_reports/``, written when it starts writing or fails, and
updated when it goes live or is abandoned."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from fencepost.core.storage.objects import report_key
from fencepost.core.versions.build import ProblemLog
from fencepost.loading.ports import Clock, Documents
from fencepost.model import BuildRecord, DiffSummary, ObjectRef


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


@dataclass(kw_only=True, frozen=True, slots=True)
class Reports:
    documents: Documents
    clock: Clock

    def write(
        self,
        dataset: str,
        build: int,
        status: str,
        *,
        objects: list[ObjectRef],
        rows: int,
        items: int,
        problems: ProblemLog,
        started: float | None,
        diff: DiffSummary | None = None,
    ) -> None:
        self.documents.put_json(
            report_key(dataset, build),
            {
                "dataset": dataset,
                "version": build,
                "status": status,
                "objects": [asdict(obj) for obj in objects],
                "ranges": rows,
                "items": items,
                "problems_total": problems.total,
                "problems_listed": len(problems.kept),
                "problems": [asdict(problem) for problem in problems.kept],
                "started_at": iso(started) if started else None,
                "updated_at": iso(self.clock()),
                **({"diff": asdict(diff)} if diff is not None else {}),
            },
        )

    def update(self, record: BuildRecord, status: str, reason: str | None = None) -> None:
        key = record.report or report_key(record.dataset, record.build)
        document: dict[str, Any] = self.documents.get_json(key) or {"dataset": record.dataset, "version": record.build}
        document.update(status=status, updated_at=iso(self.clock()), items_written=record.written)
        if reason:
            document["reason"] = reason
        self.documents.put_json(key, document)
