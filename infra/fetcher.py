"""Sources: the fetch function, the schedule that starts a round of it every five minutes, and its five alarms.

A round reads each folder's ``_source.json`` (``fencepost.sources``), checks the sources that are due, and writes a
new release into the folder's ``_fetched/`` objects, which the bucket notifies to the loader as any upload. The
function's role holds exactly the calls a round makes:

- the bucket: list it (its folders, and each ``_fetched/`` folder), read ``_source.json`` objects, and read, write
  and delete only ``<folder>/_fetched/*`` (``HeadObject`` after an upload, uploads in parts aborted on failure);
- the table: the states of the sources and the rounds' lease, ``GetItem``/``Query``/``PutItem``/``DeleteItem`` of
  the ``#sources`` partition only (``dynamodb:LeadingKeys``), and ``Query`` of the ``#datasets`` partition (the
  datasets' records, to count the stale ones);
- the secret store: ``GetSecretValue`` and ``DescribeSecret`` (its tag ``fencepost:hosts``, the hosts it may be sent
  to) of the secrets named under ``sourceSecretPrefix`` (default ``fencepost/``), so a ``_source.json`` can only
  name secrets meant for sources, and send each only where its tag says.

A round that fails is not retried (the next is five minutes away, and a source that failed is checked sooner:
``core.sources.schedule``). Rounds never overlap: each takes a lease in the ``#sources`` partition first
(``fencepost.sources.rounds``), which works on any account (reserved concurrency would need room in the account's
quota, which a new account may not have). The alarms: a source whose checks failed three times in a row, and a
source no check found current for three of its intervals, a dataset serving a version older than its ``max_age``
(from the function's metrics, ``SourcesFailing``, ``SourcesStale`` and ``DatasetsStale``), the function failing, and
the function not run for 15 minutes (from Lambda's own ``Invocations``: the others come from the function itself,
so a schedule that stopped would silence them too).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_scheduler as scheduler
from constructs import Construct

from fencepost.core.storage.keys import DATASETS_PK, SOURCES_PK
from fencepost.core.storage.objects import FETCHED_FOLDER, SOURCE_NAME
from fencepost.observability import FETCH_SERVICE
from fencepost.sources.outcomes import FAILING
from fencepost.sources.staleness import METRIC as STALE_METRIC
from infra import nag
from infra.alarms import PERIOD, any_in_period, silent
from infra.functions import PythonFunction, own_metric
from infra.settings import DeploySettings

HANDLER: Final = "fencepost.handlers.fetch.handler"
EVERY: Final = cdk.Duration.minutes(5)  # the shortest interval a source may ask on AWS (SOURCE_MIN_EVERY_SECONDS)
TIMEOUT: Final = cdk.Duration.minutes(15)  # downloads of hundreds of MB, with retries
MEMORY_MB: Final = 512  # downloads are streamed to /tmp and hashed as they come; archives unpacked a chunk at a time
# /tmp holds a download and the members kept of it, each at most the loader's MAX_OBJECT_BYTES (512 MiB by default)
EPHEMERAL_MB: Final = 3072
METRICS_SERVICE: Final = FETCH_SERVICE


class Sources(Construct):
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
        fetch = PythonFunction(
            self,
            "FetchFunction",
            asset=asset,
            handler=HANDLER,
            description="Fencepost fetch: the folders' sources (_source.json), checked and written when due",
            memory_mb=MEMORY_MB,
            ephemeral_mb=EPHEMERAL_MB,
            timeout=TIMEOUT,
            settings=settings,
            log_level=settings.loader_log_level,
            environment={
                "TABLE_NAME": table.table_name,
                "BUCKET_NAME": bucket.bucket_name,
                **settings.fetch_environment(),
            },
        )
        self.function, role = fetch.function, fetch.role
        fetched = bucket.arn_for_objects(f"*/{FETCHED_FOLDER}/*")
        sources = [bucket.arn_for_objects(SOURCE_NAME), bucket.arn_for_objects(f"*/{SOURCE_NAME}")]
        role.add_to_policy(iam.PolicyStatement(actions=["s3:ListBucket"], resources=[bucket.bucket_arn]))
        role.add_to_policy(iam.PolicyStatement(actions=["s3:GetObject"], resources=[*sources, fetched]))
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["s3:PutObject", "s3:AbortMultipartUpload", "s3:DeleteObject"], resources=[fetched]
            )
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:DeleteItem"],
                resources=[table.table_arn],
                conditions={"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [SOURCES_PK]}},
            )
        )
        # The datasets' records, read (never written) to count the stale ones each round (fencepost.sources.staleness)
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["dynamodb:Query"],
                resources=[table.table_arn],
                conditions={"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": [DATASETS_PK]}},
            )
        )
        secrets = cdk.Stack.of(self).format_arn(
            service="secretsmanager",
            resource="secret",
            resource_name=f"{settings.source_secret_prefix}*",
            arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"], resources=[secrets]
            )
        )
        self.function.configure_async_invoke(retry_attempts=0)
        self.schedule = self._schedule()
        bucket_arn = nag.arn_token(bucket)
        for resource, reason in (
            (f"{bucket_arn}/*/{FETCHED_FOLDER}/*", "It writes the releases it fetches into each folder's _fetched/."),
            (f"{bucket_arn}/*/{SOURCE_NAME}", "Any folder may name its source: it reads each folder's _source.json."),
            (
                f"arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:"
                f"{settings.source_secret_prefix}*",
                "The secrets sources may name: those under sourceSecretPrefix.",
            ),
        ):
            nag.acknowledge(role, f"AwsSolutions-IAM5[Resource::{resource}]", reason)
        self.alarms = [
            any_in_period(
                self,
                "FetchErrorsAlarm",
                description="The fetch function failed (an unhandled error, a timeout or out of memory): a round of "
                "the sources was cut short, and the sources after it wait for the next round.",
                metric=self.function.metric_errors(statistic="Sum", period=PERIOD),
            ),
            silent(
                self,
                "FetchHeartbeatAlarm",
                description=(
                    "The fetch function has not run for 15 minutes (its schedule runs it every 5): the schedule was "
                    "disabled or deleted, or cannot invoke it. No source is checked, and the sources' own alarms, "
                    "which the function's metrics raise, stay quiet."
                ),
                metric=self.function.metric_invocations(statistic="Sum", period=PERIOD),
                periods=3,
            ),
            any_in_period(
                self,
                "SourcesFailingAlarm",
                description=(
                    f"A folder's source failed {FAILING} checks in a row: its folder keeps its last release and the "
                    "dataset its live version. GET /datasets/{name} shows the source's reason (a publisher down, a "
                    "checksum that does not match, a changed layout, a secret that cannot be read)."
                ),
                metric=own_metric(METRICS_SERVICE, "SourcesFailing", "Maximum"),
            ),
            any_in_period(
                self,
                "SourcesStaleAlarm",
                description=(
                    "No check found a folder's source current for three of its intervals: its data may be stale. "
                    "GET /datasets/{name} shows the source's last check and why it failed."
                ),
                metric=own_metric(METRICS_SERVICE, "SourcesStale", "Maximum"),
            ),
            any_in_period(
                self,
                "DatasetsStaleAlarm",
                description=(
                    "A dataset serves a version older than its max_age (its _settings.json, or 3 times its source's "
                    "interval): GET /datasets shows which, with its age. Lookups still answer from it."
                ),
                metric=own_metric(METRICS_SERVICE, STALE_METRIC, "Maximum"),
            ),
        ]

    def _schedule(self) -> scheduler.CfnSchedule:
        """EventBridge Scheduler's schedule, with a role that may invoke this function and nothing else (the L2
        target's role would also invoke every version and alias, ``<arn>:*``)."""
        stack = cdk.Stack.of(self)
        role = iam.Role(
            self,
            "ScheduleRole",
            assumed_by=iam.ServicePrincipal(
                "scheduler.amazonaws.com", conditions={"StringEquals": {"aws:SourceAccount": stack.account}}
            ),
            description="Fencepost's schedule of the sources: invokes the fetch function",
        )
        role.add_to_policy(
            iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[self.function.function_arn])
        )
        return scheduler.CfnSchedule(
            self,
            "Schedule",
            description="Every 5 minutes: Fencepost checks the folders' sources that are due",
            schedule_expression=f"rate({EVERY.to_minutes()} minutes)",
            flexible_time_window=scheduler.CfnSchedule.FlexibleTimeWindowProperty(mode="OFF"),
            target=scheduler.CfnSchedule.TargetProperty(
                arn=self.function.function_arn,
                role_arn=role.role_arn,
                retry_policy=scheduler.CfnSchedule.RetryPolicyProperty(maximum_retry_attempts=0),
            ),
        )
