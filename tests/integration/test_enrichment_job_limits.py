"""An enrichment job's bounds, on DynamoDB Local and the local S3 with the real loader: a job keeps at most
``ENRICH_PARTS_IN_FLIGHT`` parts on the data queue it shares with loads; a part that runs past the function's time,
and a gzip member that inflates to one endless line, each fail the job with the reason (and leave no part behind)
instead of being delivered again and again or filling the function's memory."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from botocore.client import BaseClient

from fencepost.core.storage.job_keys import job_file_key, parts_prefix, summary_key
from fencepost.enrichment.input_lines import MAX_LINE_CHARS
from tests.support import V4_FILE, read_tsv
from tests.support.lookups import tsv_bytes
from tests.support.stacks import Stack

MARGIN = 1.0  # the integration stack's DEADLINE_MARGIN_SECONDS


class _NoTimeLeft:
    """The invocation's context with no more time than the loader keeps in hand: its deadline is already here."""

    def __init__(self, context: Any) -> None:
        self._context = context

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def get_remaining_time_in_millis(self) -> int:
        return int(MARGIN * 1000)


def _loaded(stack: Stack) -> None:
    stack.put("geo/v4.tsv", tsv_bytes(read_tsv(V4_FILE, 2_000)))
    stack.drain()
    assert stack.dataset("geo")["status"] == "READY"


def _parts_left(stack: Stack, job: str) -> int:
    return int(stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix=parts_prefix(job)).get("KeyCount", 0))


@pytest.mark.parametrize("stack", [{"ENRICH_PART_BYTES": "4096", "ENRICH_PARTS_IN_FLIGHT": "3"}], indirect=True)
def test_a_job_keeps_at_most_its_parts_in_flight_on_the_queue_and_writes_every_row(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    _loaded(stack)
    listed: list[str] = []  # the parts listed: by the plan, the last parts and the join, not by every part
    call = BaseClient._make_api_call  # type: ignore[attr-defined]

    def counting(client: Any, operation: str, parameters: dict[str, Any]) -> Any:
        if operation == "ListObjectsV2" and parameters.get("Prefix") == parts_prefix("window"):
            listed.append(operation)
        return call(client, operation, parameters)

    monkeypatch.setattr(BaseClient, "_make_api_call", counting)
    queued: list[int] = []  # messages on the data queue (the one delivered among them) as each part is delivered

    def counted(handler: Any) -> Any:
        def wrapped(event: dict[str, Any], context: Any) -> Any:
            if any('"part":' in record["body"] for record in event["Records"]):
                names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
                found = stack.sqs.get_queue_attributes(QueueUrl=stack.queues.data.url, AttributeNames=names)
                queued.append(sum(int(found["Attributes"][name]) for name in names))
            return handler(event, context)

        return wrapped

    stack.deliver_with(counted)
    addresses = [f"1.0.{n // 250 % 250}.{n % 250}" for n in range(8_000)]
    stack.put("_enrich/window/in/a.txt", "\n".join(addresses).encode() + b"\n")
    stack.put(job_file_key("window"), json.dumps({"datasets": ["geo"]}))
    stack.drain()

    summary = stack.report(summary_key("window"))
    assert summary["state"] == "done", summary
    assert summary["parts"] >= 20
    assert len(queued) == summary["parts"]  # each part delivered once
    assert max(queued) == 3
    assert len(listed) <= 3 + 2
    written = stack.s3.get_object(Bucket=stack.bucket, Key=summary["outputs"][0]["output"])["Body"].read()
    assert [line.split(",", 1)[0] for line in written.decode().splitlines()[1:]] == addresses


def test_a_part_that_runs_past_the_function_s_time_fails_the_job_saying_what_to_set(stack: Stack) -> None:
    _loaded(stack)
    ran_out: list[str] = []

    def parts_out_of_time(handler: Any) -> Any:
        def wrapped(event: dict[str, Any], context: Any) -> Any:
            if any('"part":' in record["body"] for record in event["Records"]):
                ran_out.append(event["Records"][0]["body"])
                context = _NoTimeLeft(context)
            return handler(event, context)

        return wrapped

    stack.deliver_with(parts_out_of_time)
    addresses = [f"1.{n % 250}.{n // 250 % 250}.{n % 200}" for n in range(150_000)]  # more than one batch of rows
    stack.put("_enrich/slow/in/a.txt", "\n".join(addresses).encode())
    stack.put(job_file_key("slow"), json.dumps({"datasets": ["geo"]}))
    stack.drain()

    summary = stack.report(summary_key("slow"))
    assert ran_out
    assert summary["state"] == "failed", summary
    assert "not enriched in the function's time" in summary["reason"]
    assert "ENRICH_PART_BYTES" in summary["reason"]
    assert _parts_left(stack, "slow") == 0


@pytest.mark.parametrize("stack", [{"ENRICH_PART_BYTES": str(1 << 20)}], indirect=True)
def test_a_gzip_member_that_inflates_to_one_endless_line_fails_the_job_naming_the_line(stack: Stack) -> None:
    _loaded(stack)
    good = gzip.compress(b"1.0.0.1\n" * 1_000)
    bomb = gzip.compress(b"\0" * (48 << 20), 9)  # 48 MiB of text with no line ending, in under 100 KB
    assert len(bomb) < 100_000
    stack.put("_enrich/bomb/in/a.txt.gz", good + bomb)
    stack.put(job_file_key("bomb"), json.dumps({"datasets": ["geo"]}))
    stack.drain()

    summary = stack.report(summary_key("bomb"))
    assert summary["state"] == "failed", summary
    # the good member's text is under a part: both members are one part, the line after the good member's
    said = f"part 1: _enrich/bomb/in/a.txt: a line runs past {MAX_LINE_CHARS:,} characters (after line 1,000)"
    assert said in summary["reason"]
    assert _parts_left(stack, "bomb") == 0
