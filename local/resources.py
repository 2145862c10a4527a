"""The bucket and queues of the stack, created on local S3/SQS exactly as the CDK stack wires them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# The same figures as the CDK stack: five deliveries before a message goes to the dead-letter queue.
MAX_RECEIVES = 5
VISIBILITY_TIMEOUT = 60  # local: the worker's invocations are short; AWS uses 6 x the loader's timeout


@dataclass(frozen=True, slots=True)
class Queues:
    url: str
    arn: str
    dlq_url: str


def create_queues(
    sqs: Any, name: str, *, visibility: int = VISIBILITY_TIMEOUT, max_receives: int = MAX_RECEIVES
) -> Queues:
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
    return Queues(url, arn, dlq_url)


def create_bucket(s3: Any, bucket: str, queues: Queues) -> None:
    """The bucket, with every object created or removed notified to the loader's queue (no filter)."""
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_notification_configuration(
        Bucket=bucket,
        NotificationConfiguration={
            "QueueConfigurations": [
                {"QueueArn": queues.arn, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"]},
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
