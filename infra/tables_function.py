"""Tables: each live version as a Parquet file in the bucket, registered in the Glue Data Catalog, by a function of
its own (``fencepost.handlers.tables``) with an asset of its own (pyarrow: ``infra.packaging.build_tables``).

A standard queue with its dead-letter queue and alarm, as the loader's: the loader sends a message as each version
goes live, the lookup function for ``GET /datasets/{name}/export?format=parquet``, ``admin rollback`` after a
rollback. The function writes ``_tables/<dataset>/version=<n>/`` (streamed to ``/tmp``, then a multipart upload)
and keeps the dataset's three Glue tables at its state (``fencepost.tables.registering``), in a Glue database made
here. Its role holds exactly the calls it makes: reads of the table's records and of the versions' table files,
writes under ``_tables/`` and of its exports' markers, the deletion of a retired dataset's history file, and
GetTable, CreateTable, UpdateTable and DeleteTable in that database.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_glue as glue
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from fencepost.core.storage.objects import EXPORTS_PREFIX, KEPT_PREFIX, TABLES_PREFIX, building_key, history_key
from fencepost.declared import TABLES
from infra import nag
from infra.alarms import PERIOD, any_in_period
from infra.functions import PythonFunction
from infra.settings import DeploySettings
from infra.sizes import TABLES_EPHEMERAL_MB, TABLES_MEMORY_MB, TABLES_TIMEOUT_MINUTES

HANDLER: Final = "fencepost.handlers.tables.handler"
TIMEOUT: Final = cdk.Duration.minutes(TABLES_TIMEOUT_MINUTES)
VISIBILITY_TIMEOUT: Final = cdk.Duration.minutes(TABLES_TIMEOUT_MINUTES * 6)
MAX_RECEIVES: Final = 5
CONCURRENCY: Final = 2  # Lambda's minimum for an SQS event source: versions are written a few at a time at most
DATABASE: Final[str] = TABLES["glue_database"].default  # the default stack's ("Fencepost")


def database_name(stack_name: str) -> str:
    """The stack's Glue database: its name in Glue's alphabet (lowercase, anything else ``_``), so that two stacks in
    one account and region keep their tables apart; the default stack's is ``DATABASE``."""
    return re.sub(r"[^a-z0-9_]", "_", stack_name.lower())


PARQUET_MARKERS: Final = building_key(f"{EXPORTS_PREFIX}*.parquet")
HISTORY_FILES: Final = history_key("*")  # each dataset's history file, deleted when the dataset is retired


class Tables(Construct):
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
        stack = cdk.Stack.of(self)
        self.database_name = database_name(stack.stack_name)
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetterQueue",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=cdk.Duration.days(14),
        )
        self.queue = sqs.Queue(
            self,
            "Queue",
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            visibility_timeout=VISIBILITY_TIMEOUT,
            retention_period=cdk.Duration.days(4),
            dead_letter_queue=sqs.DeadLetterQueue(queue=self.dead_letters, max_receive_count=MAX_RECEIVES),
        )
        self.database = glue.CfnDatabase(
            self,
            "Database",
            catalog_id=stack.account,
            database_input=glue.CfnDatabase.DatabaseInputProperty(
                name=self.database_name,
                description="Fencepost: each dataset as <name> (live), <name>_versions and <name>_history",
            ),
        )
        made = PythonFunction(
            self,
            "TablesFunction",
            asset=asset,
            handler=HANDLER,
            description="Fencepost tables: each live version as Parquet, registered in the Glue Data Catalog",
            memory_mb=TABLES_MEMORY_MB,
            ephemeral_mb=TABLES_EPHEMERAL_MB,
            timeout=TIMEOUT,
            settings=settings,
            log_level=settings.loader_log_level,
            environment={
                "TABLE_NAME": table.table_name,
                "BUCKET_NAME": bucket.bucket_name,
                "GLUE_DATABASE": self.database_name,
            },
        )
        self.function, self.role = made.function, made.role
        self._grant(table, bucket, stack)
        self.queue.grant(self.function, "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")
        self.function.add_event_source_mapping(
            f"SqsEventSource:{cdk.Names.node_unique_id(self.queue.node)}",
            event_source_arn=self.queue.queue_arn,
            batch_size=1,
            max_concurrency=CONCURRENCY,
            report_batch_item_failures=True,
        )
        self.alarms = [
            any_in_period(
                self,
                "DeadLettersAlarm",
                description=(
                    f"A version's Parquet file or Glue tables failed {MAX_RECEIVES} times and the message was parked "
                    "in the tables dead-letter queue: the catalog may lag the live version (lookups are unaffected). "
                    "Inspect the tables function's logs, fix the cause and redrive the message."
                ),
                metric=self.dead_letters.metric_approximate_number_of_messages_visible(
                    statistic="Maximum", period=PERIOD
                ),
            ),
            any_in_period(
                self,
                "ErrorsAlarm",
                description="The tables function failed (an unhandled error, a timeout or out of memory).",
                metric=self.function.metric_errors(statistic="Sum", period=PERIOD),
            ),
        ]

    def _grant(self, table: dynamodb.ITable, bucket: s3.IBucket, stack: cdk.Stack) -> None:
        table.grant(self.function, "dynamodb:GetItem", "dynamodb:Query")  # records, timelines, version headers
        policy = self.function.add_to_role_policy
        policy(iam.PolicyStatement(actions=["s3:ListBucket"], resources=[bucket.bucket_arn]))  # a 404, not a 403
        tables, table_files = f"{TABLES_PREFIX}*", f"{KEPT_PREFIX}*.table.gz"
        readable = [bucket.arn_for_objects(key) for key in (table_files, tables, PARQUET_MARKERS)]
        policy(iam.PolicyStatement(actions=["s3:GetObject"], resources=readable))
        policy(
            iam.PolicyStatement(
                actions=["s3:PutObject", "s3:AbortMultipartUpload"], resources=[bucket.arn_for_objects(tables)]
            )
        )
        markers = bucket.arn_for_objects(PARQUET_MARKERS)
        policy(iam.PolicyStatement(actions=["s3:PutObject", "s3:DeleteObject"], resources=[markers]))
        policy(iam.PolicyStatement(actions=["s3:DeleteObject"], resources=[bucket.arn_for_objects(HISTORY_FILES)]))
        arn = f"arn:{stack.partition}:glue:{stack.region}:{stack.account}"
        database = self.database_name
        catalog = [f"{arn}:catalog", f"{arn}:database/{database}", f"{arn}:table/{database}/*"]
        glue = ["glue:GetTable", "glue:CreateTable", "glue:UpdateTable", "glue:DeleteTable"]
        policy(iam.PolicyStatement(actions=glue, resources=catalog))
        bucket_arn = nag.arn_token(bucket)
        for key, why in (
            (table_files, "It reads each version's table file under _kept/, one per version, nothing else there."),
            (tables, "It writes each version's Parquet file and columns under _tables/, a folder per version."),
            (PARQUET_MARKERS, "It takes over and deletes the marker of a Parquet export under _exports/."),
            (HISTORY_FILES, "It deletes a retired dataset's history file, one per dataset under _tables/."),
        ):
            nag.acknowledge(self.role, f"AwsSolutions-IAM5[Resource::{bucket_arn}/{key}]", why)
        nag.acknowledge(
            self.role,
            f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:table/{database}/*]",
            "It registers a table per dataset and its versions' table in its own Glue database, created as datasets "
            "appear.",
        )

    def told_by(self, loader: lambda_.IFunction, lookup: lambda_.IFunction, bucket: s3.IBucket) -> None:
        """The loader (each version going live) and the lookup function (Parquet exports) may send to the queue;
        the loader deletes a version's Parquet file with the version."""
        for function in (loader, lookup):
            assert isinstance(function, lambda_.Function)
            function.add_environment("TABLES_QUEUE_URL", self.queue.queue_url)
            function.add_to_role_policy(
                iam.PolicyStatement(actions=["sqs:SendMessage"], resources=[self.queue.queue_arn])
            )
        assert isinstance(loader, lambda_.Function)
        loader.add_to_role_policy(
            iam.PolicyStatement(actions=["s3:DeleteObject"], resources=[bucket.arn_for_objects(f"{TABLES_PREFIX}*")])
        )
        assert loader.role is not None
        nag.acknowledge(
            loader.role,
            f"AwsSolutions-IAM5[Resource::{nag.arn_token(bucket)}/{TABLES_PREFIX}*]",
            "The loader deletes a deleted version's Parquet file and columns under _tables/, a folder per version.",
        )
