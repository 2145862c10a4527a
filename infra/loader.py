"""Loader: S3 notifications into an SQS queue, the loader function consuming it, and a 5-minute sweep.

The bucket sends every object-created and object-removed notification (no key filter: the loader ignores keys under
``_``) to a standard queue. The loader also sends messages to that queue itself (chunk fan-out, delayed build and
delete messages), so the function is allowed to re-trigger itself: ``recursive_loop=ALLOW``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_notifications as s3n
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra import nag
from infra.alarms import PERIOD, any_in_period
from infra.functions import PythonFunction
from infra.settings import CACHE_TTL_SECONDS, DeploySettings
from infra.sizes import LOADER_MEMORY_MB, LOADER_TIMEOUT_MINUTES
from infra.storage import REPORTS_PREFIX

HANDLER: Final = "fencepost.handlers.loader.handler"
TIMEOUT: Final = cdk.Duration.minutes(LOADER_TIMEOUT_MINUTES)
MEMORY_MB: Final = LOADER_MEMORY_MB  # sized in infra/sizes.py from measurements
# SQS event sources need a visibility timeout of at least six times the function timeout (the mapping fails to
# deploy otherwise): a message stays hidden while an invocation, and Lambda's own retries of it, may still run.
VISIBILITY_TIMEOUT: Final = cdk.Duration.minutes(TIMEOUT.to_minutes() * 6)
# A message that fails this many receives goes to the dead-letter queue; the loader reads the same number as
# MAX_RECEIVES to know when a receive is the last one.
MAX_RECEIVES: Final = 5
SWEEP_EVERY: Final = cdk.Duration.minutes(5)

SETTLE_SECONDS: Final = 10
CHUNK_ITEMS: Final = 5000
WRITE_THREADS: Final = 8


class Loader(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        table: dynamodb.ITable,
        bucket: s3.IBucket,
        asset: Path,
        settings: DeploySettings,
    ) -> None:
        super().__init__(scope, construct_id)
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetterQueue",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=cdk.Duration.days(14),
        )
        # SSE-SQS, not the AWS-managed KMS key: S3 cannot send notifications to a queue encrypted with aws/sqs.
        self.queue = sqs.Queue(
            self,
            "EventQueue",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            visibility_timeout=VISIBILITY_TIMEOUT,
            retention_period=cdk.Duration.days(4),
            dead_letter_queue=sqs.DeadLetterQueue(queue=self.dead_letters, max_receive_count=MAX_RECEIVES),
        )
        destination = s3n.SqsDestination(self.queue)
        bucket.add_event_notification(s3.EventType.OBJECT_CREATED, destination)
        bucket.add_event_notification(s3.EventType.OBJECT_REMOVED, destination)

        loader = PythonFunction(
            self,
            "LoaderFunction",
            asset=asset,
            handler=HANDLER,
            description="Fencepost loader: range files from S3 into DynamoDB",
            memory_mb=MEMORY_MB,
            timeout=TIMEOUT,
            settings=settings,
            # The loader feeds its own queue (chunks, delayed build and delete messages); a load is a chain of
            # more than the 16 hops after which Lambda's loop detection would drop its messages.
            recursive_loop=lambda_.RecursiveLoop.ALLOW,
            environment={
                "TABLE_NAME": table.table_name,
                "BUCKET_NAME": bucket.bucket_name,
                "QUEUE_URL": self.queue.queue_url,
                "CACHE_TTL_SECONDS": str(CACHE_TTL_SECONDS),
                "SETTLE_SECONDS": str(SETTLE_SECONDS),
                "CHUNK_ITEMS": str(CHUNK_ITEMS),
                "WRITE_THREADS": str(WRITE_THREADS),
                "WRITE_RATE": str(settings.write_rate),
                "MAX_RECEIVES": str(MAX_RECEIVES),
            },
        )
        self.function = loader.function
        bucket.grant_read(self.function)
        bucket.grant_put(self.function, f"{REPORTS_PREFIX}*")
        table.grant_read_write_data(self.function)
        self.queue.grant_send_messages(self.function)
        # Consuming (receive, delete, change visibility) is granted by the event source.
        self.function.add_event_source(
            sources.SqsEventSource(
                self.queue,
                batch_size=1,
                max_concurrency=settings.loader_concurrency,
                report_batch_item_failures=True,
            )
        )
        # The sweep fails stalled loads. A failed sweep is retried neither by EventBridge nor by Lambda's async
        # invocation (the sweep is the loader's only async caller): the next one is five minutes away.
        self.function.configure_async_invoke(retry_attempts=0)
        self.sweep = events.Rule(
            self,
            "SweepSchedule",
            description="Every 5 minutes: the Fencepost loader fails loads that have stalled",
            schedule=events.Schedule.rate(SWEEP_EVERY),
            targets=[targets.LambdaFunction(self.function, retry_attempts=0)],
        )
        # cdk-nag names the bucket by its logical id, e.g. <StorageRangeFilesD1ACBD59.Arn>.
        bucket_arn = f"<{_logical_id(bucket)}.Arn>"
        nag.acknowledge(
            loader.role,
            "AwsSolutions-IAM5[Action::s3:GetObject*]",
            "bucket.grant_read: GetObject and its version/ACL/tagging variants on this bucket's objects only.",
        )
        nag.acknowledge(
            loader.role,
            "AwsSolutions-IAM5[Action::s3:GetBucket*]",
            "bucket.grant_read: bucket-level reads (location, versioning) on this one bucket.",
        )
        nag.acknowledge(
            loader.role,
            "AwsSolutions-IAM5[Action::s3:List*]",
            "bucket.grant_read: ListBucket on this one bucket, to list a dataset's files.",
        )
        nag.acknowledge(
            loader.role,
            f"AwsSolutions-IAM5[Resource::{bucket_arn}/*]",
            "The loader reads whichever range file is uploaded; any key of this one bucket may be a range file.",
        )
        nag.acknowledge(
            loader.role,
            "AwsSolutions-IAM5[Action::s3:Abort*]",
            "bucket.grant_put: aborting its own multipart uploads of load reports, under _reports/ only.",
        )
        nag.acknowledge(
            loader.role,
            f"AwsSolutions-IAM5[Resource::{bucket_arn}/{REPORTS_PREFIX}*]",
            "The loader writes one load report per version under _reports/; it may not write anywhere else.",
        )
        self.alarms = [
            any_in_period(
                self,
                "DeadLettersAlarm",
                description=(
                    f"A loader message failed {MAX_RECEIVES} times and was parked in the dead-letter queue; "
                    "a load did not finish. Inspect the message, fix the cause and redrive it."
                ),
                metric=self.dead_letters.metric_approximate_number_of_messages_visible(
                    statistic="Maximum", period=PERIOD
                ),
            ),
            any_in_period(
                self,
                "LoaderErrorsAlarm",
                description="The loader function failed (an unhandled error, a timeout or out of memory).",
                metric=self.function.metric_errors(statistic="Sum", period=PERIOD),
            ),
        ]


def _logical_id(bucket: s3.IBucket) -> str:
    resource = bucket.node.default_child
    if not isinstance(resource, cdk.CfnElement):
        raise TypeError("the loader needs a bucket defined in this app, not an imported one")
    return cdk.Stack.of(bucket).get_logical_id(resource)
