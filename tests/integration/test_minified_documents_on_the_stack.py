"""A minified JSON document through the real loader, its S3 adapter streaming it from moto's S3: AWS's
ip-ranges.json of today's size on one line loads and is dated by its ``createDate``; with the document limit
lowered it fails saying so; one huge line that is no document fails at the line limit."""

from __future__ import annotations

import pytest

from tests.support.documents import minified
from tests.support.stacks import Stack


def test_a_minified_aws_document_over_a_line_loads_and_is_dated_by_its_create_date(stack: Stack) -> None:
    body = minified(15_000)
    assert len(body) > 1 << 20  # over the default MAX_LINE_BYTES
    stack.put("aws/ip-ranges.json", body)
    stack.drain()
    record = stack.dataset("aws")
    assert (record["status"], record["version"], record["ranges"]) == ("READY", 1, 15_000)
    assert record["data_date"] == {"date": "2026-11-28T03:13:04Z", "source": "document", "object": "aws/ip-ranges.json"}
    status, answer = stack.get("/lookup", ip="10.58.151.7", dataset="aws")
    assert (status, answer["data"]) == (
        200,
        {"service": "EC2", "region": "eu-west-1", "network_border_group": "eu-west-1"},
    )


@pytest.mark.parametrize("stack", [{"MAX_DOCUMENT_BYTES": "1200000"}], indirect=True)
def test_over_the_document_limit_a_minified_document_fails_and_a_long_line_fails_at_the_line_limit(
    stack: Stack,
) -> None:
    stack.put("aws/ip-ranges.json", minified(15_000))  # 1.5 MB on one line
    stack.put("list/one-line.txt", b"1.0.0.0/24 " + b"x" * (1 << 20) + b"\n")
    stack.drain()
    aws, listed = stack.dataset("aws"), stack.dataset("list")
    assert (aws["status"], listed["status"]) == ("FAILED", "FAILED")
    assert (
        aws["load"]["problems"][0]["reason"]
        == "a JSON document larger than 1,200,000 bytes (MAX_DOCUMENT_BYTES) is not read"
    )
    assert listed["load"]["problems"][0]["reason"].startswith(
        "the line is longer than 1,048,576 bytes (MAX_LINE_BYTES)"
    )
