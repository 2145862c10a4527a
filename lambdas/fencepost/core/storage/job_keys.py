"""Where an enrichment job lives in the bucket (``_enrich/<job>/``), and what its objects say of it.

::

    _enrich/<job>/in/<name>            the inputs, uploaded first (any number; gzip or not)
    _enrich/<job>/job.json             the job file, uploaded last: it starts the job
    _enrich/<job>/_plan.json           how the inputs were cut into parts (written once the job is planned)
    _enrich/<job>/_parts/<i>/<k>       part k of input i, enriched, and <k>.json what it counted (deleted once joined)
    _enrich/<job>/out/<name>           each input enriched, its parts joined in order
    _enrich/<job>/summary.json         the job's outcome: done (with its counts) or failed (with the reason)

Writing the job file needs write access to the bucket, as loading does: no route of the API starts a job.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

JOBS_PREFIX: Final = "_enrich/"
JOB_FILE: Final = "job.json"
JOB_NAME_RULE: Final = "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
JOB_NAME_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
_JOB_NAME: Final = re.compile(JOB_NAME_PATTERN)
PART_SUMMARY: Final = ".json"


def is_job_name(name: str) -> bool:
    return _JOB_NAME.fullmatch(name) is not None


def job_file_owner(key: str) -> str | None:
    """The job whose job file ``key`` is; None for any other key (an input, an output, a name no job can have)."""
    parts = key.split("/")
    if len(parts) != 3 or f"{parts[0]}/" != JOBS_PREFIX or parts[2] != JOB_FILE or not is_job_name(parts[1]):
        return None
    return parts[1]


def job_prefix(job: str) -> str:
    return f"{JOBS_PREFIX}{job}/"


def inputs_prefix(job: str) -> str:
    return f"{job_prefix(job)}in/"


def job_file_key(job: str) -> str:
    return job_prefix(job) + JOB_FILE


def plan_key(job: str) -> str:
    return f"{job_prefix(job)}_plan.json"


def summary_key(job: str) -> str:
    return f"{job_prefix(job)}summary.json"


def parts_prefix(job: str) -> str:
    return f"{job_prefix(job)}_parts/"


def part_key(job: str, source: int, part: int) -> str:
    return f"{parts_prefix(job)}{source:05d}/{part:05d}"


def output_key(job: str, input_key: str, form: str, gzip: bool) -> str:
    """The input's name under ``out/``, with the output's form as its suffix unless it has it already, and ``.gz``
    when it is compressed: ``in/a.log.gz`` → ``out/a.log.csv.gz``, ``in/b.csv`` → ``out/b.csv``."""
    name = input_key.removeprefix(inputs_prefix(job)).removesuffix(".gz")
    if not name.endswith(f".{form}"):
        name += f".{form}"
    return f"{job_prefix(job)}out/{name}{'.gz' if gzip else ''}"


def status(job: str, plan: Any, summary: Any, parts_done: int, *, job_file: bool) -> dict[str, Any]:
    """What ``GET /enrich/{job}`` shows, from the job's objects: ``waiting`` (objects under the job's prefix, its
    inputs say, but no job file yet), ``queued`` (a job file, not yet planned), ``running`` (planned: parts done of
    parts), then what the summary says (``done`` or ``failed``)."""
    if isinstance(summary, dict) and summary.get("state") in ("done", "failed"):
        return {"job": job, **summary}
    if isinstance(plan, dict):
        total = int(plan.get("parts", 0))
        return {
            "job": job,
            "state": "running",
            "parts": total,
            "parts_done": min(parts_done, total),
            "inputs": [source.get("key") for source in plan.get("inputs", []) if isinstance(source, dict)],
        }
    return {"job": job, "state": "queued" if job_file else "waiting"}


def after_job(job: str) -> str:
    """The least key after every key of the job's, and before the next job's: where a listing of the jobs after
    ``job`` starts (``/``, which ends the job's prefix, is followed by ``0``; no job name has a character between)."""
    return f"{JOBS_PREFIX}{job}0"


def count_part_summaries(keys: Iterable[str]) -> int:
    return sum(1 for key in keys if key.endswith(PART_SUMMARY))
