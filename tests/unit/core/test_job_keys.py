"""What a job's objects say of it (``core.storage.job_keys.status``), and where a listing of the jobs after one
starts: after every key of its own, before any of the next job's, in S3's order (bytes)."""

from __future__ import annotations

from fencepost.core.storage.job_keys import after_job, count_part_summaries, job_prefix, part_key, status

PLAN = {"parts": 3, "inputs": [{"key": "_enrich/j/in/a.txt"}, {"key": "_enrich/j/in/b.txt"}]}


def test_a_job_is_waiting_queued_running_done_or_failed_as_its_objects_say() -> None:
    assert status("j", None, None, 0, job_file=False) == {"job": "j", "state": "waiting"}
    assert status("j", None, None, 0, job_file=True) == {"job": "j", "state": "queued"}
    running = status("j", PLAN, None, 5, job_file=True)
    assert running == {
        "job": "j",
        "state": "running",
        "parts": 3,
        "parts_done": 3,  # never more than the plan's (a part counted twice by a listing in flux)
        "inputs": ["_enrich/j/in/a.txt", "_enrich/j/in/b.txt"],
    }
    done = {"state": "done", "rows": 7, "parts": 3}
    assert status("j", PLAN, done, 1, job_file=True) == {"job": "j", **done}
    failed = {"state": "failed", "reason": "no inputs", "finished_at": "2026-11-28T10:00:00+00:00"}
    assert status("j", None, failed, 0, job_file=False) == {"job": "j", **failed}
    # a summary of no known state is no outcome: the plan says where the job is
    assert status("j", PLAN, {"state": "?"}, 1, job_file=True)["state"] == "running"


def test_the_jobs_after_one_start_after_its_keys_and_before_the_next_jobs() -> None:
    names = ["a", "a-b", "a.b", "a0", "a_b", "aa", "b"]
    keys = sorted(
        (f"{job_prefix(name)}{rest}" for name in names for rest in ("job.json", "in/x", "out/~")), key=str.encode
    )
    for name in names:
        after = [key for key in keys if key.encode() > after_job(name).encode()]
        assert all(not key.startswith(job_prefix(name)) for key in after)
        assert after == [
            key for key in keys if key.encode() > max(k.encode() for k in keys if k.startswith(job_prefix(name)))
        ]


def test_the_parts_done_are_the_parts_counted() -> None:
    keys = [part_key("j", 0, 0), part_key("j", 0, 0) + ".json", part_key("j", 1, 0), part_key("j", 1, 0) + ".json"]
    assert count_part_summaries(keys) == 2
    assert count_part_summaries(keys[:1]) == 0
