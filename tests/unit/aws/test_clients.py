"""Every client the functions make sends the User-Agent built once, not rebuilt per request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse, HTTPHeaders

from fencepost.aws import USER_AGENT
from fencepost.aws.dynamo import make_client
from fencepost.aws.s3 import make_s3_client
from fencepost.aws.sqs import make_sqs_client


class _Response:
    """The raw body botocore reads from a response."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Any:
        yield self._body


@pytest.fixture(autouse=True)
def _region(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
    }.items():
        monkeypatch.setenv(name, value)


CALLS: list[tuple[Callable[[], Any], str, Callable[[Any], Any], bytes]] = [
    (make_client, "dynamodb", lambda c: c.list_tables(), b"{}"),
    (make_s3_client, "s3", lambda c: c.list_buckets(), b"<ListAllMyBucketsResult></ListAllMyBucketsResult>"),
    (make_sqs_client, "sqs", lambda c: c.list_queues(), b"{}"),
]


@pytest.mark.parametrize(("make", "service", "call", "body"), CALLS, ids=[c[1] for c in CALLS])
def test_requests_carry_the_fixed_user_agent(
    make: Callable[[], Any], service: str, call: Callable[[Any], Any], body: bytes
) -> None:
    client = make()
    sent: list[str] = []

    def answer(request: Any, **_: Any) -> AWSResponse:
        sent.append(
            request.headers["User-Agent"].decode()
            if isinstance(request.headers["User-Agent"], bytes)
            else request.headers["User-Agent"]
        )
        return AWSResponse(request.url, 200, HTTPHeaders(), _Response(body))

    client.meta.events.register(f"before-send.{service}", answer)
    call(client)
    call(client)
    assert len(sent) == 2
    assert all(agent.startswith(USER_AGENT) for agent in sent), sent
    assert "ua/2.1" not in sent[0]  # not botocore's per-request build
