"""The bucket and queues of the stack, created on local S3/SQS exactly as the CDK stack wires them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fencepost.declared import LOADER

# The same figure as the CDK stack (infra.loader): the deliveries before a message goes to the dead-letter queue.
MAX_RECEIVES: int = LOADER["max_receives"].default
VISIBILITY_TIMEOUT = 60  # local: the worker's invocations are short; AWS uses 6 x the loader's timeout


@dataclass(frozen=True, slots=True)
class Queue:
    url: str
    arn: str
    dlq_url: str


@dataclass(frozen=True, slots=True)
class Queues:
    """The loader's two queues: control (S3 notifications, builds) and data (chunk writes, deletions)."""

    control: Queue
    data: Queue

    def __iter__(self) -> Iterator[Queue]:
        return iter((self.control, self.data))


def create_queues(
    sqs: Any,
    name: str,
    *,
    visibility: int = VISIBILITY_TIMEOUT,
    max_receives: int = MAX_RECEIVES,
    data_visibility: int | None = None,
) -> Queues:
    """``<name>-control`` and ``<name>-data``, each with its own dead-letter queue (the data queue's visibility
    timeout is ``data_visibility`` when given)."""
    control = _create_queue(sqs, f"{name}-control", visibility, max_receives)
    data = _create_queue(sqs, f"{name}-data", data_visibility or visibility, max_receives)
    return Queues(control, data)


def create_tables_queue(sqs: Any, name: str, *, visibility: int = VISIBILITY_TIMEOUT) -> Queue:
    """``<name>-tables``, the tables function's queue (each version to write as Parquet and register in Glue), with
    its dead-letter queue."""
    return _create_queue(sqs, f"{name}-tables", visibility, MAX_RECEIVES)


def create_glue_database(glue: Any, name: str) -> None:
    """The Glue database the datasets' tables are registered in (as the CDK stack's ``glue.CfnDatabase``)."""
    glue.create_database(DatabaseInput={"Name": name, "Description": "Fencepost's datasets as tables"})


def _create_queue(sqs: Any, name: str, visibility: int, max_receives: int) -> Queue:
    dlq_url = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(
        QueueName=name,
        Attributes={
            "VisibilityTimeout": str(visibility),
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": max_receives}),
        },
    )["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return Queue(url, arn, dlq_url)


def create_bucket(s3: Any, bucket: str, queues: Queues) -> None:
    """The bucket, with every object created or removed notified to the loader's control queue (no filter)."""
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={
            "QueueConfigurations": [
                {"QueueArn": queues.control.arn, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"]},
            ]
        },
    )


def queue_depth(sqs: Any, url: str) -> int:
    """Messages visible, in flight and delayed."""
    names = [
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
    ]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return sum(int(attributes.get(name, 0)) for name in names)
