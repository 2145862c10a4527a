"""``GET /enrich`` and ``GET /enrich/{job}`` over a bucket in memory (``fencepost.http.job_routes``): what each reads
for each state, the list's page and cursor, a job gone between the list and its read, and the refusals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from fencepost.errors import InvalidRequest, Unavailable, UnknownJob
from fencepost.http.job_routes import JobStatuses

SUMMARY = {"state": "done", "parts": 2, "rows": 9, "bad_rows": 1, "outputs": [{"output": "o1"}, {"output": "o2"}]}


class Objects:
    """Keys to JSON documents (or bytes); what was read, in order."""

    def __init__(self, objects: dict[str, Any]) -> None:
        self.objects, self.read = objects, list[str]()

    def job_names(self, after: str | None, limit: int) -> tuple[list[str], bool]:
        names = sorted({key.split("/")[1] for key in self.objects if key.count("/") > 1})
        names = [name for name in names if after is None or name > after]
        return names[:limit], len(names) > limit

    def listing(self, prefix: str) -> dict[str, float | None]:
        found: dict[str, float | None] = {}
        for key in (key for key in self.objects if key.startswith(prefix)):
            head, slash, _ = key[len(prefix) :].partition("/")
            found[prefix + head + slash] = None if slash else 1_800_000_000.0
        return found

    def keys(self, prefix: str) -> Iterator[str]:
        return iter([key for key in self.objects if key.startswith(prefix)])

    def get_json(self, key: str) -> Any:
        self.read.append(key)
        return self.objects.get(key)


def _statuses(objects: dict[str, Any]) -> tuple[JobStatuses, Objects]:
    bucket = Objects(objects)
    return JobStatuses(lambda: bucket, ThreadPoolExecutor(2)), bucket


def _body(answer: Any) -> Any:
    assert answer.headers["Cache-Control"] == "no-store"
    return json.loads(answer.body)


def test_each_state_reads_no_more_than_it_needs() -> None:
    objects = {
        "_enrich/d/job.json": {},
        "_enrich/d/_plan.json": {"parts": 2, "inputs": []},
        "_enrich/d/summary.json": SUMMARY,
        "_enrich/r/job.json": {},
        "_enrich/r/_plan.json": {"parts": 3, "inputs": [{"key": "_enrich/r/in/a"}]},
        "_enrich/r/_parts/00000/00000": b"",
        "_enrich/r/_parts/00000/00000.json": {},
        "_enrich/q/job.json": {},
        "_enrich/w/in/a": b"",
    }
    statuses, bucket = _statuses(objects)
    done = _body(statuses.answer_one("d"))
    assert (done["state"], done["rows"], done["submitted_at"]) == ("done", 9, "2027-01-15T08:00:00+00:00")
    assert bucket.read == ["_enrich/d/summary.json"]
    running = _body(statuses.answer_one("r"))
    assert (running["state"], running["parts"], running["parts_done"]) == ("running", 3, 1)
    assert _body(statuses.answer_one("q")) == {
        "job": "q",
        "state": "queued",
        "submitted_at": "2027-01-15T08:00:00+00:00",
    }
    assert _body(statuses.answer_one("w")) == {"job": "w", "state": "waiting", "submitted_at": None}
    assert bucket.read == ["_enrich/d/summary.json", "_enrich/r/_plan.json"]
    listed = _body(statuses.answer_all({"limit": "2"}))
    assert [(job["job"], job["state"], job["parts_done"], job["outputs"]) for job in listed["jobs"]] == [
        ("d", "done", 2, 2),
        ("q", "queued", None, None),
    ]
    assert listed["next"] == "q"
    rest = _body(statuses.answer_all({"limit": "2", "cursor": "q"}))
    assert ([job["job"] for job in rest["jobs"]], rest["next"]) == (["r", "w"], None)


def test_a_job_gone_between_the_list_and_its_read_is_left_out() -> None:
    statuses, bucket = _statuses({"_enrich/a/job.json": {}, "_enrich/b/job.json": {}})
    listing = bucket.listing
    bucket.listing = lambda prefix: {} if prefix == "_enrich/a/" else listing(prefix)  # type: ignore[method-assign]
    assert [job["job"] for job in _body(statuses.answer_all({}))["jobs"]] == ["b"]


def test_refusals() -> None:
    statuses, _ = _statuses({})
    with pytest.raises(UnknownJob, match="no enrichment job named 'j'"):
        statuses.answer_one("j")
    for name in ("-j", "j" * 65, "a/b", ""):
        with pytest.raises(InvalidRequest, match="invalid job name"):
            statuses.answer_one(name)
    for query in ({"limit": "0"}, {"limit": "101"}, {"limit": "1e2"}, {"limit": "-1"}, {"cursor": "_x"}):
        with pytest.raises(InvalidRequest):
            statuses.answer_all(query)
    assert _body(statuses.answer_all({"limit": "100"})) == {"jobs": [], "next": None}
    with pytest.raises(Unavailable, match="BUCKET_NAME"):
        JobStatuses(None, ThreadPoolExecutor(1)).answer_all({})
