"""``GET /enrich/{job}`` and ``GET /enrich``: enrichment jobs in the bucket (``core.storage.job_keys``), as their
objects say, read only (a job starts when its job file is written to the bucket, which needs write access to it).

A job's state costs one list of its prefix (which of the job file, plan and summary there are), then one GET: its
summary once it has one (``done`` or ``failed``), else its plan and a list of its parts (``running``, parts done of
parts); with neither, ``queued`` (a job file) or ``waiting`` (objects, its inputs say, but no job file yet). The
list of jobs is a page of names in the bucket's order (S3 lists keys in order, not by time: newest first would read
every job), each job read as above, side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor
from datetime import UTC, datetime
from typing import Any, Protocol

from fencepost.core.storage.job_keys import (
    JOB_NAME_RULE,
    count_part_summaries,
    is_job_name,
    job_file_key,
    job_prefix,
    parts_prefix,
    plan_key,
    status,
    summary_key,
)
from fencepost.errors import InvalidRequest, Unavailable, UnknownJob
from fencepost.http.parameters import JOBS_DEFAULT, JOBS_MAX
from fencepost.http.responses import NO_STORE, HttpResponse, json_response


class JobBucket(Protocol):
    def job_names(self, after: str | None, limit: int) -> tuple[list[str], bool]:
        """At most ``limit`` jobs, in the bucket's order, after ``after``; and whether more follow."""
        ...

    def listing(self, prefix: str) -> dict[str, float | None]:
        """What lies directly under ``prefix``: objects with when they were written, folders with None."""
        ...

    def keys(self, prefix: str) -> Iterator[str]: ...
    def get_json(self, key: str) -> Any: ...


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def check_job_name(job: str) -> None:
    if not is_job_name(job):
        raise InvalidRequest(f"invalid job name {job[:80]!r}: {JOB_NAME_RULE}")


def brief(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A job as the list shows it: its state and counts, not its outputs' names or its bad rows."""
    done = answer["state"] == "done"
    outputs = answer.get("outputs")
    return {
        "job": answer["job"],
        "state": answer["state"],
        "submitted_at": answer.get("submitted_at"),
        "parts": answer.get("parts"),
        "parts_done": answer.get("parts") if done else answer.get("parts_done"),
        "rows": answer.get("rows"),
        "bad_rows": answer.get("bad_rows"),
        "outputs": len(outputs) if isinstance(outputs, list) else None,
        "finished_at": answer.get("finished_at"),
        "reason": answer.get("reason"),
    }


class JobStatuses:
    def __init__(self, files: Callable[[], JobBucket] | None, pool: Executor) -> None:
        self.files, self.pool = files, pool

    def answer_one(self, job: str) -> HttpResponse:
        check_job_name(job)
        found = self.status(self._bucket(), job)
        if found is None:
            raise UnknownJob(f"no enrichment job named {job!r} is in the bucket (under {job_prefix(job)})")
        return json_response(200, found, NO_STORE)

    def answer_all(self, query: Mapping[str, str]) -> HttpResponse:
        limit, after = _limit(query.get("limit")), query.get("cursor")
        if after is not None:
            check_job_name(after)
        files = self._bucket()
        names, more = files.job_names(after, limit)
        found = list(self.pool.map(lambda name: self.status(files, name), names))
        jobs = [brief(answer) for answer in found if answer is not None]  # gone since listed: left out
        return json_response(200, {"jobs": jobs, "next": names[-1] if more and names else None}, NO_STORE)

    @staticmethod
    def status(files: JobBucket, job: str) -> dict[str, Any] | None:
        """The job's status, from its objects; None when it has none."""
        top = files.listing(job_prefix(job))
        if not top:
            return None
        summary = files.get_json(summary_key(job)) if summary_key(job) in top else None
        plan, done = None, 0
        finished = isinstance(summary, dict) and summary.get("state") in ("done", "failed")
        if not finished and plan_key(job) in top:
            plan = files.get_json(plan_key(job))
            done = count_part_summaries(files.keys(parts_prefix(job))) if plan is not None else 0
        answer = status(job, plan, summary, done, job_file=job_file_key(job) in top)
        return {"job": job, "state": answer.pop("state"), "submitted_at": _iso(top.get(job_file_key(job)))} | answer

    def _bucket(self) -> JobBucket:
        if self.files is None:
            raise Unavailable("enrichment jobs are not read here (BUCKET_NAME)")
        return self.files()


def _limit(text: str | None) -> int:
    if text is None:
        return JOBS_DEFAULT
    if not (text.isascii() and text.isdigit() and len(text) <= 4 and 1 <= int(text) <= JOBS_MAX):
        raise InvalidRequest(f"invalid limit {text[:20]!r}: 1 to {JOBS_MAX}")
    return int(text)
