"""``GET /enrich/{job}`` and ``GET /enrich`` through the real lookup handler, on moto's S3 server and DynamoDB Local:
a job followed from its inputs (waiting) and its job file (queued) through its parts (running) to its summary (done)
with the real loader, a job that fails with its reason, the jobs listed a page at a time in the bucket's order, and
every call the routes make allowed by the lookup role's exact policy, which reads a job's plan and summary, never its
files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from fencepost.aws.s3 import Bucket
from fencepost.core.storage.job_keys import job_file_key, output_key, part_key, plan_key, summary_key
from fencepost.enrichment.job_files import PlannedInput
from tests.iam.front import PolicyFront
from tests.iam.policy import role_permissions
from tests.support.stacks import Stack
from tests.support.synthesis import Synthesize
from tests.synth import Synth

SMALL_PARTS = {"ENRICH_PART_BYTES": str(16 << 10)}
RANGES = "start,end,country\n1.0.0.0,1.0.255.255,AU\n2001:db8::,2001:db8::ffff,ZZ\n"
ADDRESSES = "".join(f"1.0.{n % 256}.{n % 200}\n" for n in range(6000)).encode()  # 61 KB: parts of 16 KiB


def _job(stack: Stack, job: str) -> tuple[int, dict[str, Any]]:
    return stack.get(f"/enrich/{job}")


def _state(stack: Stack, job: str) -> str:
    status, body = _job(stack, job)
    assert status == 200, body
    return str(body["state"])


def _planned(stack: Stack, job: str) -> bool:
    return int(stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix=plan_key(job)).get("KeyCount", 0)) > 0


@pytest.mark.parametrize("stack", [SMALL_PARTS], indirect=True)
def test_a_job_is_waiting_queued_running_then_done_as_its_objects_say(stack: Stack) -> None:
    stack.put("geo/ranges.csv", RANGES)
    stack.drain()
    status, body = _job(stack, "j1")
    assert (status, body["error"]["code"]) == (404, "UNKNOWN_JOB")

    stack.put("_enrich/j1/in/a.txt", ADDRESSES)
    assert _job(stack, "j1")[1] == {"job": "j1", "state": "waiting", "submitted_at": None}
    stack.put(job_file_key("j1"), json.dumps({"datasets": ["geo"], "fields": "data"}))
    status, queued = _job(stack, "j1")
    assert (queued["state"], queued["submitted_at"] is not None) == ("queued", True), queued

    stack.drain_until(lambda: _planned(stack, "j1"))
    running, parts = _job(stack, "j1")[1], stack.report(plan_key("j1"))["parts"]
    assert parts >= 3
    assert (running["state"], running["parts"], running["inputs"]) == ("running", parts, ["_enrich/j1/in/a.txt"])
    assert 0 <= running["parts_done"] < parts
    stack.drain_until(lambda: _job(stack, "j1")[1].get("parts_done", 0) >= 2)
    assert _state(stack, "j1") == "running"

    stack.drain()
    status, done = _job(stack, "j1")
    assert (status, done["state"], done["parts"], done["rows"], done["bad_rows"]) == (200, "done", parts, 6000, 0)
    assert [output["output"].startswith("_enrich/j1/out/a.txt") for output in done["outputs"]] == [True]
    assert done["submitted_at"] == queued["submitted_at"]
    assert {"started_at", "finished_at", "versions", "first_bad_rows"} <= set(done)
    status, listed = stack.get("/enrich")
    assert (status, listed["next"]) == (200, None)
    assert listed["jobs"] == [
        {
            "job": "j1",
            "state": "done",
            "submitted_at": done["submitted_at"],
            "parts": parts,
            "parts_done": parts,
            "rows": 6000,
            "bad_rows": 0,
            "outputs": 1,
            "finished_at": done["finished_at"],
            "reason": None,
        }
    ]


def test_a_job_that_cannot_run_is_failed_with_its_reason_and_names_no_job_can_have_are_refused(stack: Stack) -> None:
    stack.put("_enrich/nope/in/a.txt", b"1.1.1.1\n")
    stack.put(job_file_key("nope"), json.dumps({"datasets": ["nothing"]}))
    stack.drain()
    failed = _job(stack, "nope")[1]
    assert (failed["state"], "nothing" in failed["reason"]) == ("failed", True), failed
    assert stack.get("/enrich")[1]["jobs"][0] | {"submitted_at": None, "finished_at": None} == {
        "job": "nope",
        "state": "failed",
        "submitted_at": None,
        "parts": None,
        "parts_done": None,
        "rows": None,
        "bad_rows": None,
        "outputs": None,
        "finished_at": None,
        "reason": failed["reason"],
    }
    for name in ("-x", "a" * 65, "a..b%20c"):
        status, body = _job(stack, name)
        assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST"), (name, body)
    for query in ({"limit": "0"}, {"limit": "101"}, {"limit": "x"}, {"cursor": "-x"}):
        status, body = stack.get("/enrich", **query)
        assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST"), (query, body)


def _write_running(stack: Stack, job: str, parts: int, done: int) -> None:
    """A planned job with ``done`` of its ``parts`` enriched, its objects as the loader's steps write them."""
    bucket = Bucket(stack.s3, stack.bucket)
    source = f"_enrich/{job}/in/a.txt"
    stack.put(source, b"1.1.1.1\n" * parts)
    stack.put(job_file_key(job), json.dumps({"datasets": ["geo"]}))
    spans = tuple((k * 8, k * 8 + 8) for k in range(parts))
    planned = PlannedInput(source, "etag", 8 * parts, False, spans, b"", output_key(job, source, "csv", False))
    plan = {"job": job, "spec": {}, "planned_at": "2026-11-28T10:00:00+00:00", "parts": parts}
    bucket.put_json(plan_key(job), plan | {"inputs": [planned.as_dict()]})
    for k in range(done):
        stack.put(part_key(job, 0, k), b"1.1.1.1\n")
        bucket.put_json(part_key(job, 0, k) + ".json", {"rows": 1})


def test_the_jobs_are_listed_a_page_at_a_time_in_the_buckets_order(stack: Stack) -> None:
    names = ["a-b", "a.b", "a", "a0", "b"]  # the bucket's order of their prefixes: "-" and "." sort before "/"
    for index, name in enumerate(names):
        _write_running(stack, name, 3, index % 3)
    stack.put("_enrich/stray.txt", b"no job")
    stack.put("_enrich/-bad/in/a.txt", b"no job can have this name")
    pages: list[list[dict[str, Any]]] = []
    cursor: dict[str, str] = {}
    while True:
        status, page = stack.get("/enrich", limit="2", **cursor)
        assert status == 200, page
        pages.append(page["jobs"])
        if page["next"] is None:
            break
        cursor = {"cursor": page["next"]}
    assert [[job["job"] for job in page] for page in pages] == [["a-b", "a.b"], ["a", "a0"], ["b"]]
    listed = [job for page in pages for job in page]
    assert [(job["state"], job["parts"], job["parts_done"]) for job in listed] == [
        ("running", 3, index % 3) for index in range(5)
    ]
    assert [job["job"] for job in stack.get("/enrich")[1]["jobs"]] == names


@pytest.fixture(scope="module")
def template(synthesize: Synthesize) -> Synth:
    return synthesize()


@pytest.fixture
def lookup_front(stack: Stack, template: Synth, moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The lookup function's S3 client made against a front that answers as S3 would under its role's policy."""
    permissions = role_permissions(
        template.template, template.ids["lookup_role"], {template.ids["bucket"]: stack.bucket}
    )
    with PolicyFront(moto_server, permissions) as front:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", front.endpoint)  # the lookup makes its client on first use
        yield front


def test_the_lookup_role_may_read_every_jobs_state_and_no_jobs_files(stack: Stack, lookup_front: PolicyFront) -> None:
    _write_running(stack, "run", 4, 1)
    stack.put("_enrich/wait/in/a.txt", b"1.1.1.1\n")
    stack.put(job_file_key("queue"), json.dumps({"datasets": ["geo"]}))
    Bucket(stack.s3, stack.bucket).put_json(
        summary_key("fail"), {"state": "failed", "reason": "no", "finished_at": "x"}
    )
    status, listed = stack.get("/enrich")
    assert status == 200, listed
    states = {job["job"]: job["state"] for job in listed["jobs"]}
    assert states == {"run": "running", "wait": "waiting", "queue": "queued", "fail": "failed"}
    assert [_state(stack, job) for job in states] == list(states.values())
    assert _job(stack, "none")[0] == 404
    assert lookup_front.refused == []
    assert set(lookup_front.read) == {plan_key("run"), summary_key("fail")}
