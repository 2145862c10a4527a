"""S3 notifications to an SQS queue, allowed only from the stack's own bucket in the stack's own account.

CDK's ``SqsDestination`` lets ``s3.amazonaws.com`` send when ``aws:SourceArn`` is the bucket. A bucket name is
global but not forever: deleted, it can be created again in another account, whose notifications would then match.
AWS's own example policy for S3 to SQS also conditions on ``aws:SourceAccount``, and so does this destination.
"""

from __future__ import annotations

import aws_cdk as cdk
import jsii
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sqs as sqs
from aws_cdk.interfaces.aws_s3 import IBucketRef
from constructs import Construct


@jsii.implements(s3.IBucketNotificationDestination)
class QueueDestination:
    """``bucket.add_event_notification(kind, QueueDestination(queue))``: one statement on the queue's policy."""

    def __init__(self, queue: sqs.IQueue) -> None:
        self.queue = queue

    def bind(self, _scope: Construct, bucket: IBucketRef) -> s3.BucketNotificationDestinationConfig:
        added = self.queue.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("s3.amazonaws.com")],
                actions=["sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"],
                resources=[self.queue.queue_arn],
                conditions={
                    "ArnLike": {"aws:SourceArn": bucket.bucket_ref.bucket_arn},
                    "StringEquals": {"aws:SourceAccount": cdk.Stack.of(self.queue).account},
                },
            )
        )
        # The notification is configured after the policy that lets it be delivered (S3 tests it at once)
        dependencies = [added.policy_dependable] if added.policy_dependable is not None else []
        return s3.BucketNotificationDestinationConfig(
            arn=self.queue.queue_arn, type=s3.BucketNotificationDestinationType.QUEUE, dependencies=dependencies
        )
