"""Loader: two SQS queues, the loader function consuming both, and a 5-minute sweep.

The loader's work comes in two kinds, each on its own standard queue so that bulk work never delays a change:

- the **control** queue gets every object-created and object-removed notification of the bucket (no key filter: the
  loader ignores keys under ``_``) and the loader's own build requests (sent with a settle delay). Few, small
  messages; they decide when a dataset is built. A handful of invocations at once is plenty.
- the **data** queue gets the loader's bulk work: chunk writes (a load fans out into thousands of them) and the
  deletions of old versions. Its concurrency (``loaderConcurrency``) is what sizes the table's write load.

One function, one handler, two event sources: each with batches of one, partial batch failures and its own maximum
concurrency. Each queue has its own dead-letter queue (after ``MAX_RECEIVES`` receives) and alarm, so a parked
message says which kind of work failed. The loader sends to both queues itself (build requests, chunk fan-out,
delayed deletes), so the function is allowed to re-trigger itself: ``recursive_loop=ALLOW``. A message it hands back
is returned to the queue it came from (ChangeMessageVisibility).

The loader's role holds exactly the calls the loader makes (``fencepost.aws.dynamo``, ``fencepost.aws.s3``,
``fencepost.aws.sqs``) and those Lambda makes for it to poll its queues: no CDK ``grant_read_write_data``/``grant_put``
(those add Scan, BatchGetItem, stream reads, object-lock and tagging rights the loader never uses).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from fencepost.core.storage.job_keys import JOBS_PREFIX
from fencepost.core.storage.objects import EXPORTS_PREFIX, KEPT_PREFIX, LEGACY_KEPT, REPORTS_PREFIX
from fencepost.declared import LOADER
from fencepost.observability import LOADER_SERVICE
from infra import nag
from infra.alarms import PERIOD, any_in_period
from infra.functions import PythonFunction, own_metric
from infra.notifications import QueueDestination
from infra.settings import DeploySettings
from infra.sizes import LOADER_MEMORY_MB, LOADER_TIMEOUT_MINUTES

HANDLER: Final = "fencepost.handlers.loader.handler"
TIMEOUT: Final = cdk.Duration.minutes(LOADER_TIMEOUT_MINUTES)
MEMORY_MB: Final = LOADER_MEMORY_MB  # sized in infra/sizes.py from measurements
# An SQS event source is refused only when the queue's visibility timeout is shorter than the function's timeout;
# AWS advises six times the timeout, which this follows: a message stays hidden while an invocation, and Lambda's
# own retries of a throttled one, may still run.
VISIBILITY_TIMEOUT: Final = cdk.Duration.minutes(TIMEOUT.to_minutes() * 6)
# A message that fails this many receives goes to the dead-letter queue; the loader reads the same number as
# MAX_RECEIVES to know when a receive is the last one.
MAX_RECEIVES: Final[int] = LOADER["max_receives"].default
SWEEP_EVERY: Final = cdk.Duration.minutes(5)
# The service dimension of the loader's own metrics (its handler's Observability): LoadsFailed, LoadsStalled.
METRICS_SERVICE: Final = LOADER_SERVICE


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
        self.control_queue, self.control_dead_letters = _queue_with_dead_letters(self, "Control")
        self.data_queue, self.data_dead_letters = _queue_with_dead_letters(self, "Data")
        # Notifications go to the control queue only; only the loader itself sends to the data queue.
        destination = QueueDestination(self.control_queue)
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
            log_level=settings.loader_log_level,
            # The loader feeds its own queues (build requests, chunks, delayed deletes); a load is a chain of
            # more than the 16 hops after which Lambda's loop detection would drop its messages.
            recursive_loop=lambda_.RecursiveLoop.ALLOW,
            environment={
                "TABLE_NAME": table.table_name,
                "BUCKET_NAME": bucket.bucket_name,
                "CONTROL_QUEUE_URL": self.control_queue.queue_url,
                "DATA_QUEUE_URL": self.data_queue.queue_url,
                **settings.loader_environment(),
            },
        )
        self.function = loader.function
        table.grant(
            self.function,
            "dynamodb:GetItem",  # records, build records (consistent reads)
            "dynamodb:Query",  # dataset listings, version headers and directories, keys of a version to delete
            "dynamodb:PutItem",  # records, build records, version headers
            "dynamodb:UpdateItem",  # every conditional transition
            "dynamodb:DeleteItem",  # build records of deleted versions
            "dynamodb:BatchWriteItem",  # chunk writes and deletions
            "dynamodb:DescribeTable",  # the billing mode, to warn about a table left PROVISIONED
            # A TransactWriteItems (a switch, rollback or retirement changes the record and the live pointer
            # together) is authorized per write it holds: its Update and Put need nothing beyond the two above.
        )
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=["s3:ListBucket"], resources=[bucket.bucket_arn])  # a folder's files
        )
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=["s3:GetObject"], resources=[bucket.arn_for_objects("*")])  # range files
        )
        written = [bucket.arn_for_objects(f"{prefix}*") for prefix in (REPORTS_PREFIX, KEPT_PREFIX, EXPORTS_PREFIX)]
        self.function.add_to_role_policy(iam.PolicyStatement(actions=["s3:PutObject"], resources=written))
        # A version's exports: an upload in parts that fails is aborted, and they are deleted with the version
        exports = bucket.arn_for_objects(f"{EXPORTS_PREFIX}*")
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=["s3:AbortMultipartUpload", "s3:DeleteObject"], resources=[exports])
        )
        # A deleted version's pieces, changes and index files, and where versions built before _kept/ kept them
        # (reports themselves are expired by the bucket)
        kept = [bucket.arn_for_objects(key) for key in (f"{KEPT_PREFIX}*", *LEGACY_KEPT)]
        self.function.add_to_role_policy(iam.PolicyStatement(actions=["s3:DeleteObject"], resources=kept))
        # Enrichment jobs (enrichment.job_steps): their plans, parts (written in pieces, copied into the outputs,
        # then deleted), outputs and summaries, all under _enrich/
        jobs = bucket.arn_for_objects(f"{JOBS_PREFIX}*")
        self.function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["s3:PutObject", "s3:AbortMultipartUpload", "s3:DeleteObject"], resources=[jobs]
            )
        )
        for queue, concurrency in (
            (self.control_queue, settings.control_concurrency),
            (self.data_queue, settings.loader_concurrency),
        ):
            queue.grant(
                self.function,
                "sqs:ReceiveMessage",  # Lambda's polling, with the next two
                "sqs:DeleteMessage",
                "sqs:GetQueueAttributes",
                "sqs:ChangeMessageVisibility",  # a handed-back message returns to its queue after a delay
                "sqs:SendMessage",  # build requests, chunks, delayed deletions
            )
            # The mapping SqsEventSource would make (same construct id, so the same logical id), without its
            # consume grant, which adds GetQueueUrl.
            self.function.add_event_source_mapping(
                f"SqsEventSource:{cdk.Names.node_unique_id(queue.node)}",
                event_source_arn=queue.queue_arn,
                batch_size=1,
                max_concurrency=concurrency,
                report_batch_item_failures=True,
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
        bucket_arn = nag.arn_token(bucket)
        nag.acknowledge(
            loader.role,
            f"AwsSolutions-IAM5[Resource::{bucket_arn}/*]",
            "The loader reads whichever range file is uploaded; any key of this one bucket may be a range file.",
        )
        nag.acknowledge(
            loader.role,
            f"AwsSolutions-IAM5[Resource::{bucket_arn}/{REPORTS_PREFIX}*]",
            "The loader writes one load report per version under _reports/; it may not write anywhere else.",
        )
        nag.acknowledge(
            loader.role,
            f"AwsSolutions-IAM5[Resource::{bucket_arn}/{EXPORTS_PREFIX}*]",
            "The loader writes and deletes each version's exports under _exports/, one object per format.",
        )
        nag.acknowledge(
            loader.role,
            f"AwsSolutions-IAM5[Resource::{bucket_arn}/{KEPT_PREFIX}*]",
            "The loader writes and deletes the files each version is read from (pieces, changes, value indexes) "
            "under _kept/, one set per version.",
        )
        nag.acknowledge(
            loader.role,
            f"AwsSolutions-IAM5[Resource::{bucket_arn}/{JOBS_PREFIX}*]",
            "The loader writes and deletes enrichment jobs' plans, parts, outputs and summaries under _enrich/.",
        )
        for key in LEGACY_KEPT:
            nag.acknowledge(
                loader.role,
                f"AwsSolutions-IAM5[Resource::{bucket_arn}/{key}]",
                f"A deleted version's {key} files, where versions built before _kept/ kept them; it may delete "
                "nothing else there.",
            )
        self.alarms = [
            any_in_period(
                self,
                "ControlDeadLettersAlarm",
                description=(
                    f"An S3 notification or build request failed {MAX_RECEIVES} times and was parked in the loader's "
                    "control dead-letter queue: a change to the bucket was not built (the dataset keeps serving its "
                    "live version; a started load is failed by the sweep). Inspect the message, fix the cause and "
                    "redrive it, or upload the folder's files again."
                ),
                metric=self.control_dead_letters.metric_approximate_number_of_messages_visible(
                    statistic="Maximum", period=PERIOD
                ),
            ),
            any_in_period(
                self,
                "DataDeadLettersAlarm",
                description=(
                    f"A chunk write or an old version's deletion failed {MAX_RECEIVES} times and was parked in the "
                    "loader's data dead-letter queue: a chunk's last delivery failed its load (the live version "
                    "keeps answering), or an old version's items were left in the table. Inspect the message, fix "
                    "the cause, then redrive a deletion or load the dataset again."
                ),
                metric=self.data_dead_letters.metric_approximate_number_of_messages_visible(
                    statistic="Maximum", period=PERIOD
                ),
            ),
            any_in_period(
                self,
                "LoaderErrorsAlarm",
                description="The loader function failed (an unhandled error, a timeout or out of memory).",
                metric=self.function.metric_errors(statistic="Sum", period=PERIOD),
            ),
            any_in_period(
                self,
                "LoadsFailedAlarm",
                description=(
                    "A load failed: the dataset's record says FAILED and why (GET /datasets/{name}), and its report "
                    "under _reports/, when the load got that far, names the objects and lines at fault. The live "
                    "version keeps answering. Fix the files and upload them again."
                ),
                metric=own_metric(METRICS_SERVICE, "LoadsFailed", "Sum"),
            ),
            any_in_period(
                self,
                "LoadsStalledAlarm",
                description=(
                    "A load stopped making progress and the sweep had to take it over: it failed the load (or "
                    "finished it, when every chunk was written). The invocation driving it died: look for the "
                    "loader's errors, timeouts or out-of-memory ends, and at the dead-letter queues, then load the "
                    "dataset again."
                ),
                metric=own_metric(METRICS_SERVICE, "LoadsStalled", "Sum"),
            ),
        ]


def _queue_with_dead_letters(scope: Construct, kind: str) -> tuple[sqs.Queue, sqs.Queue]:
    """``<kind>Queue`` and ``<kind>DeadLetterQueue``: TLS only, parked after MAX_RECEIVES receives.

    SSE-SQS, not the AWS-managed KMS key: S3 cannot send notifications to a queue encrypted with aws/sqs.
    """
    dead_letters = sqs.Queue(
        scope,
        f"{kind}DeadLetterQueue",
        encryption=sqs.QueueEncryption.SQS_MANAGED,
        enforce_ssl=True,
        retention_period=cdk.Duration.days(14),
    )
    queue = sqs.Queue(
        scope,
        f"{kind}Queue",
        encryption=sqs.QueueEncryption.SQS_MANAGED,
        enforce_ssl=True,
        visibility_timeout=VISIBILITY_TIMEOUT,
        retention_period=cdk.Duration.days(4),
        dead_letter_queue=sqs.DeadLetterQueue(queue=dead_letters, max_receive_count=MAX_RECEIVES),
    )
    return queue, dead_letters
