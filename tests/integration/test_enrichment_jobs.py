"""Enrichment jobs in the bucket, on DynamoDB Local and the local S3 with the real loader: inputs cut into many parts
(line-aligned ranges of a CSV and of a file of addresses, the members of a gzip ALB log) are enriched part by part and
joined in order into exactly what ``python -m enrich`` writes for the same file; a worker killed midway, or after its
part was written, leaves no row twice and none missing; a job that cannot run fails with the reason."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

from enrich.__main__ import main as enrich
from fencepost.aws.job_objects import MultipartWriter
from fencepost.core.space.addresses import format_address, parse_boundary
from fencepost.core.storage.job_keys import job_file_key, parts_prefix, summary_key
from fencepost.enrichment.parts import plain_parts
from tests.support import ROOT, V4_FILE, read_tsv
from tests.support.lookups import tsv_bytes
from tests.support.stacks import Stack

SMALL_PARTS = {"ENRICH_PART_BYTES": str(64 << 10)}
ALB = (ROOT / "tests" / "data" / "aws_logs" / "alb.log").read_text().splitlines()


def _load(stack: Stack) -> list[tuple[int, int]]:
    rows = read_tsv(V4_FILE, 5_000)
    stack.put("geo/v4.tsv", tsv_bytes(rows))
    stack.drain()
    assert stack.dataset("geo")["status"] == "READY"
    return [(parse_boundary(row[0])[1], parse_boundary(row[1])[1]) for row in rows]


def _addresses(spans: list[tuple[int, int]], count: int, rng: random.Random) -> list[str]:
    found = []
    for index in range(count):
        kind = index % 20
        if kind == 0:
            found.append("not an address")
        elif kind == 1:
            found.append("")
        elif kind == 2:
            found.append(format_address(6, rng.getrandbits(128)))
        elif kind == 3:
            found.append(format_address(4, rng.getrandbits(32)))  # wherever it falls: answers, gaps, misses
        else:
            low, high = rng.choice(spans)
            found.append(format_address(4, rng.randint(low, high)))
    return found


def _inputs(spans: list[tuple[int, int]]) -> dict[str, bytes]:
    rng = random.Random(39)
    csv_rows = [f'{n},{ip},"a note, with a comma {n}"' for n, ip in enumerate(_addresses(spans, 20_000, rng))]
    lines = _addresses(spans, 6_000, rng)
    clients = _addresses(spans, 3_000, rng)
    alb = [ALB[n % len(ALB)].replace("192.168.131.39", ip or "-", 1) for n, ip in enumerate(clients)]
    members = b"".join(gzip.compress(("\n".join(alb[at : at + 250]) + "\n").encode()) for at in range(0, len(alb), 250))
    return {
        "a.csv": ("n,ip,note\n" + "\n".join(csv_rows) + "\n").encode(),
        "b.txt": "\r\n".join(lines).encode(),  # CRLF, and no line ending at the end
        "alb.log.gz": members,
    }


def _expected(tmp_path: Path, name: str, body: bytes, *options: str) -> bytes:
    source, out = tmp_path / name, tmp_path / f"{name}.out"
    source.write_bytes(body)
    assert enrich([str(source), "--dataset", "geo", "--out", str(out), "--quiet", *options]) == 0
    return out.read_bytes()


def _run(stack: Stack, job: str, inputs: dict[str, bytes], settings: dict[str, Any]) -> dict[str, Any]:
    for name, body in inputs.items():
        stack.put(f"_enrich/{job}/in/{name}", body)
    stack.put(job_file_key(job), json.dumps(settings))
    stack.drain()
    summary: dict[str, Any] = stack.report(summary_key(job))
    return summary


def _output(stack: Stack, key: str) -> bytes:
    body: bytes = stack.s3.get_object(Bucket=stack.bucket, Key=key)["Body"].read()
    return gzip.decompress(body) if key.endswith(".gz") else body


@pytest.mark.parametrize("stack", [SMALL_PARTS], indirect=True)
def test_a_job_cut_into_parts_writes_what_one_run_writes(stack: Stack, tmp_path: Path) -> None:
    inputs = _inputs(_load(stack))
    plain = {name: body for name, body in inputs.items() if not name.endswith(".gz")}

    summary = _run(stack, "j1", plain, {"datasets": ["geo"], "fields": "data,range"})
    logs = _run(stack, "j2", {"alb.log.gz": inputs["alb.log.gz"]}, {"datasets": "geo", "format": "alb"})

    assert summary["state"] == "done", summary
    assert summary["parts"] >= 12  # the CSV and the addresses cut at 64 KiB
    outputs = {output["input"].rsplit("/", 1)[1]: output for output in summary["outputs"]}
    for name, body in plain.items():
        expected = _expected(tmp_path, name, body, "--fields", "data,range")
        assert _output(stack, outputs[name]["output"]) == expected, name
    assert outputs["a.csv"]["rows"] == 20_000
    assert outputs["b.txt"]["rows"] == 6_000
    assert summary["rows"] == 26_000
    # bad rows are numbered by their line in their file, across parts: every 20th address is no address
    assert [bad["line"] for bad in summary["first_bad_rows"]] == sorted(
        [line for n in range(0, 20_000, 20) for line in (n + 2, n + 3)]
    )[:20]
    assert logs["state"] == "done", logs
    assert logs["parts"] == 12  # each member holds more than 64 KiB of text: a part each
    expected = _expected(tmp_path, "alb.log.gz", inputs["alb.log.gz"], "--format", "alb")
    assert _output(stack, logs["outputs"][0]["output"]) == expected
    assert stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix=parts_prefix("j1")).get("KeyCount") == 0
    key = logs["outputs"][0]["output"]
    assert stack.s3.head_object(Bucket=stack.bucket, Key=key)["ContentType"] == "application/gzip"
    assert stack.s3.head_object(Bucket=stack.bucket, Key=outputs["a.csv"]["output"])["ContentType"] == "text/csv"


def _quoted(addresses: list[str]) -> tuple[bytes, list[tuple[int, int]], int]:
    """A CSV whose notes hold line breaks (CRLF rows, LF and CRLF inside the quotes), one quote never closed: its
    bytes, each record's byte range, and the line of the unclosed quote."""
    text, ranges, stray, middle = "n,ip,note\r\n", [], 0, len(addresses) // 2
    for n, ip in enumerate(addresses):
        start = len(text.encode())
        if n == middle:
            stray = text.count("\n") + 1
            text += f'{n},{ip},"no closing quote\r\n'
        else:
            lines = 1 if middle < n < middle + 5 else n % 4 + 1  # one line each after it: the quote stays open
            note = "\n".join(f'line {k} of note {n}, with ""quotes""' for k in range(lines))
            text += f'{n},{ip},"' + (note.replace("\n", "\r\n") if n % 3 else note) + '"\r\n'
        ranges.append((start, len(text.encode())))
    return text.encode(), ranges, stray


@pytest.mark.parametrize("stack", [SMALL_PARTS], indirect=True)
def test_a_csv_with_quoted_line_breaks_cut_into_parts_writes_what_one_run_writes(stack: Stack, tmp_path: Path) -> None:
    addresses = [ip for ip in _addresses(_load(stack), 3_000, random.Random(11)) if ip and ip != "not an address"]
    body, records, stray = _quoted(addresses)
    cuts = [start for start, _ in plain_parts(len(body), 64 << 10)[1:]]
    assert any(start < cut < end for cut in cuts for start, end in records)  # a cut in bytes alone splits records

    summary = _run(stack, "quoted", {"notes.csv": body}, {"datasets": ["geo"], "record_lines": 4})

    assert summary["state"] == "done", summary
    assert summary["parts"] >= 4
    assert summary["rows"] == len(addresses)
    expected = _expected(tmp_path, "notes.csv", body, "--record-lines", "4")
    assert _output(stack, summary["outputs"][0]["output"]) == expected
    assert expected.count(b"\n") == body.count(b"\n")  # every row's line breaks, and no more
    assert summary["bad_rows"] == 1  # numbered by its line in the file, though a later part reads it
    assert [(bad["line"], "no line closes" in bad["reason"]) for bad in summary["first_bad_rows"]] == [(stray, True)]


@pytest.mark.parametrize("stack", [SMALL_PARTS], indirect=True)
def test_a_log_written_in_its_own_syntax_by_a_job_is_what_one_run_writes(stack: Stack, tmp_path: Path) -> None:
    text = gzip.decompress(_inputs(_load(stack))["alb.log.gz"])
    settings = {"datasets": ["geo"], "format": "alb", "out_format": "log"}

    summary = _run(stack, "asis", {"alb.log": text}, settings)

    assert summary["state"] == "done", summary
    assert summary["parts"] > 1
    key = summary["outputs"][0]["output"]
    assert stack.s3.head_object(Bucket=stack.bucket, Key=key)["ContentType"] == "text/plain"
    expected = _expected(tmp_path, "alb.log", text, "--format", "alb", "--out-format", "log")
    assert _output(stack, key) == expected


@pytest.mark.parametrize("stack", [SMALL_PARTS], indirect=True)
def test_workers_killed_midway_or_after_their_part_leave_no_row_twice_and_none_missing(
    stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _inputs(_load(stack))["a.csv"]
    killed: list[str] = []
    close = MultipartWriter.close

    def dies_once_while_writing(writer: MultipartWriter) -> None:
        if writer.key.endswith("/00000/00003") and "midway" not in killed:
            killed.append("midway")  # the part's object is never completed: as if the function died writing it
            raise RuntimeError("killed while writing its part")
        close(writer)

    def dies_once_after_its_part(handler: Any) -> Any:
        def wrapped(event: dict[str, Any], context: Any) -> Any:
            answer = handler(event, context)
            if '"part":5' in event["Records"][0]["body"] and "after" not in killed:
                killed.append("after")  # the part and its counts are written, the message is not deleted
                raise RuntimeError("killed after writing its part")
            return answer

        return wrapped

    monkeypatch.setattr(MultipartWriter, "close", dies_once_while_writing)
    stack.deliver_with(dies_once_after_its_part)

    summary = _run(stack, "killed", {"a.csv": body}, {"datasets": ["geo"]})

    assert sorted(killed) == ["after", "midway"]
    assert summary["state"] == "done", summary
    assert summary["rows"] == 20_000
    written = _output(stack, summary["outputs"][0]["output"])
    assert written == _expected(tmp_path, "a.csv", body)


def test_a_job_that_cannot_run_fails_with_the_reason(stack: Stack) -> None:
    _load(stack)
    alb = {"x.log": b"not an alb line\n" * 10}
    cases = {
        "unknown": ({"a.txt": b"1.1.1.1\n"}, {"datasets": ["nope"]}, "nope"),
        "settings": ({"a.txt": b"1.1.1.1\n"}, {"datasets": ["geo"], "colour": "red"}, "no setting 'colour'"),
        "noinputs": ({}, {"datasets": ["geo"]}, "no inputs under _enrich/noinputs/in/"),
        "notgzip": ({"a.txt.gz": b"1.1.1.1\n"}, {"datasets": ["geo"]}, "named .gz but is not gzip"),
        "layout": (alb, {"datasets": ["geo"], "format": "alb"}, "line 1"),
        "collide": ({"a": b"1.1.1.1\n", "a.csv": b"ip\n1.1.1.1\n"}, {"datasets": ["geo"]}, "both be written to"),
    }
    for job, (inputs, settings, _) in cases.items():
        for name, body in inputs.items():
            stack.put(f"_enrich/{job}/in/{name}", body)
        stack.put(job_file_key(job), json.dumps(settings))
    stack.put(job_file_key("notjson"), "{not json")
    stack.drain()

    for job, (_, _, reason) in cases.items():
        summary = stack.report(summary_key(job))
        assert summary["state"] == "failed", job
        assert reason in summary["reason"], (job, summary)
    assert stack.report(summary_key("notjson"))["state"] == "failed"


def test_every_part_answers_from_the_versions_live_when_the_job_was_planned(stack: Stack) -> None:
    spans = _load(stack)
    body = "\n".join(_addresses(spans, 3_000, random.Random(7))[4::20] * 40).encode()
    stack.put("_enrich/pinned/in/a.txt", body)
    stack.put(job_file_key("pinned"), json.dumps({"datasets": ["geo"], "fields": "version"}))
    stack.drain_until(lambda: _exists(stack, "_enrich/pinned/_plan.json"))
    held = _hold(stack)  # the parts' messages, until a new version is live
    assert held
    rows = read_tsv(V4_FILE, 5_000)
    stack.put("geo/_settings.json", json.dumps({"max_change_percent": None, "max_removed_percent": None}))
    stack.put("geo/v4.tsv", tsv_bytes([[*row[:2], "ZZ", *row[3:]] for row in rows]))
    stack.drain()
    assert stack.dataset("geo")["version"] == 2
    for message in held:
        stack.sqs.send_message(QueueUrl=stack.queues.data.url, MessageBody=message)
    stack.drain()

    summary = stack.report(summary_key("pinned"))
    assert summary["state"] == "done", summary
    assert summary["versions"] == {"geo": {"1": summary["rows"] - summary["bad_rows"]}}


def _exists(stack: Stack, key: str) -> bool:
    return bool(stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix=key).get("KeyCount"))


def _hold(stack: Stack) -> list[str]:
    bodies = []
    while messages := stack.sqs.receive_message(QueueUrl=stack.queues.data.url, MaxNumberOfMessages=10).get(
        "Messages", []
    ):
        for message in messages:
            bodies.append(message["Body"])
            stack.sqs.delete_message(QueueUrl=stack.queues.data.url, ReceiptHandle=message["ReceiptHandle"])
    return bodies
