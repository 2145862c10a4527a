"""Each message goes to its lane's queue, and a handed-back message returns to the queue it came from."""

from __future__ import annotations

from typing import Any, cast

from fencepost.aws.sqs import Queues, queue_name
from fencepost.loading.messages import BuildRequested, Command, DeleteVersion, WriteChunk, dump

CONTROL = "https://sqs.us-east-1.amazonaws.com/123456789012/Fencepost-LoaderControlQueue9A14413D-AbC"
DATA = "https://sqs.us-east-1.amazonaws.com/123456789012/Fencepost-LoaderDataQueue8523BEF9-DeF"


class RecordingSqs:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def send_message(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("send", kwargs))
        return {}

    def change_message_visibility(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("visibility", kwargs))
        return {}


def _queues() -> tuple[Queues[Command], RecordingSqs]:
    sqs = RecordingSqs()
    return Queues[Command](cast(Any, sqs), control_url=CONTROL, data_url=DATA, encode=dump), sqs


def test_messages_go_to_their_lanes_queue_with_their_delay() -> None:
    queues, sqs = _queues()
    queues.send(BuildRequested("geo", 1), 10)
    queues.send_all([WriteChunk("geo", 1, n, "p") for n in (1, 2)])
    queues.send(DeleteVersion("geo", 1, 0.0), 2000)  # longer than SQS allows: 900 s, then another hop
    sent = [(kwargs["QueueUrl"], kwargs["DelaySeconds"]) for _, kwargs in sqs.calls]
    assert sent == [(CONTROL, 10), (DATA, 0), (DATA, 0), (DATA, 900)]


def test_a_handed_back_message_returns_to_the_queue_it_came_from() -> None:
    queues, sqs = _queues()
    arn = "arn:aws:sqs:us-east-1:123456789012:Fencepost-LoaderDataQueue8523BEF9-DeF"
    queues.retry_in(arn, "receipt-1", 40)
    queues.retry_in(arn.replace("LoaderDataQueue8523BEF9-DeF", "LoaderControlQueue9A14413D-AbC"), "receipt-2", 5)
    queues.retry_in("arn:aws:sqs:us-east-1:123456789012:someone-else", "receipt-3", 5)  # not ours: left alone
    changed = [(kwargs["QueueUrl"], kwargs["ReceiptHandle"], kwargs["VisibilityTimeout"]) for _, kwargs in sqs.calls]
    assert changed == [(DATA, "receipt-1", 40), (CONTROL, "receipt-2", 5)]


def test_queue_names_from_urls_and_arns_agree() -> None:
    assert queue_name(DATA) == queue_name("arn:aws:sqs:us-east-1:123456789012:Fencepost-LoaderDataQueue8523BEF9-DeF")
    assert queue_name("http://127.0.0.1:4566/000000000000/fencepost-loader-control") == "fencepost-loader-control"
