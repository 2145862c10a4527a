"""Lookup API: the lookup function and the front that brings requests to it (``infra.front`` says which).

The function, its grants and its errors alarm are the same behind either front; the front adds its URL and its own
alarms. With ``-c snapStart=on`` the function publishes a version at each deploy and the front calls the ``live``
alias, which SnapStart needs (it restores published versions only).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from fencepost.core.storage.job_keys import plan_key, summary_key
from fencepost.core.storage.objects import EXPORTS_PREFIX, KEPT_PREFIX, LEGACY_KEPT, building_key
from infra import nag
from infra.alarms import PERIOD, any_in_period
from infra.front import UNRESERVED_MINIMUM, Front
from infra.function_url import FunctionUrlFront
from infra.functions import PythonFunction
from infra.http_api import HttpApiFront
from infra.settings import DeploySettings
from infra.sizes import LOOKUP_MEMORY_MB, LOOKUP_TIMEOUT_SECONDS

HANDLER: Final = "fencepost.handlers.lookup.handler"
MEMORY_MB: Final = LOOKUP_MEMORY_MB  # sized in infra/sizes.py from measurements
TIMEOUT: Final = cdk.Duration.seconds(LOOKUP_TIMEOUT_SECONDS)

LIVE_ALIAS: Final = "live"


class LookupApi(Construct):
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
        lookup = PythonFunction(
            self,
            "LookupFunction",
            asset=asset,
            handler=HANDLER,
            description="Fencepost lookups: one DynamoDB Query per address",
            memory_mb=MEMORY_MB,
            timeout=TIMEOUT,
            settings=settings,
            log_level=settings.lookup_log_level,
            reserved_concurrency=settings.front.reserved_concurrency,
            snap_start=settings.front.snap_start,
            environment={
                "TABLE_NAME": table.table_name,
                "BUCKET_NAME": bucket.bucket_name,
                **settings.lookup_environment(),
                "CORS_ORIGINS": ",".join(settings.cors_origins),
            },
        )
        self.function = lookup.function
        self.role = lookup.role
        reserved = settings.front.reserved_concurrency
        if reserved is not None:
            cdk.Annotations.of(self.function).add_warning_v2(
                "fencepost:reservedConcurrency",
                f"lookupConcurrency={reserved} reserves {reserved} concurrent executions: the account's concurrency "
                f"limit must be at least {reserved + UNRESERVED_MINIMUM} (Lambda keeps {UNRESERVED_MINIMUM} "
                "unreserved) or the deploy fails; check it with `aws lambda get-account-settings --query "
                "AccountLimit.ConcurrentExecutions`, or deploy with -c lookupConcurrency=off",
            )
        # Lookups only ever read single items and Query one partition: nothing else on the table.
        table.grant(self.function, "dynamodb:GetItem", "dynamodb:Query")
        # Diffs and reverse lookups read the pieces, changes and value indexes a build kept for its version (where
        # versions built before _kept/ kept them too), and nothing else.
        served = [f"{KEPT_PREFIX}*", *LEGACY_KEPT]
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=["s3:GetObject"], resources=[bucket.arn_for_objects(key) for key in served])
        )
        # Without ListBucket, S3 answers a read of a missing object 403 (AccessDenied), not 404: a kept file read
        # where versions built before _kept/ kept it, and an export not yet written, would be errors (503), not
        # answers. The function lists only the enrichment jobs under _enrich/ (GET /enrich: the jobs' names, each
        # job's own objects and its parts' keys), never a dataset's objects.
        self.function.add_to_role_policy(iam.PolicyStatement(actions=["s3:ListBucket"], resources=[bucket.bucket_arn]))
        for key in served:
            nag.acknowledge(
                lookup.role,
                f"AwsSolutions-IAM5[Resource::{nag.arn_token(bucket)}/{key}]",
                "Diffs and reverse lookups read the files a build kept, one set per version under _kept/ (or where "
                "versions built before it kept them).",
            )
        # GET /enrich/{job} reads a job's plan and summary: not its inputs or outputs (the users' files).
        jobs = [plan_key("*"), summary_key("*")]
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=["s3:GetObject"], resources=[bucket.arn_for_objects(key) for key in jobs])
        )
        for key in jobs:
            nag.acknowledge(
                lookup.role,
                f"AwsSolutions-IAM5[Resource::{nag.arn_token(bucket)}/{key}]",
                "GET /enrich/{job} reads each enrichment job's plan and summary, one of each per job under _enrich/.",
            )

        # The front calls a published version through an alias when SnapStart is on (it snapshots versions only).
        self.target: lambda_.IFunction = self.function
        if settings.front.snap_start:
            self.target = lambda_.Alias(self, "LiveAlias", alias_name=LIVE_ALIAS, version=self.function.current_version)
            cdk.Annotations.of(self.function).acknowledge_warning(
                "@aws-cdk/aws-lambda:snapStartRequirePublish", "current_version publishes a version at each deploy"
            )
        self.front: HttpApiFront | FunctionUrlFront
        if settings.front.front is Front.FUNCTION_URL:
            self.front = FunctionUrlFront(self, self.target, self.function, settings)
        else:
            self.front = HttpApiFront(self, self.target, settings)
        self.alarms: list[cloudwatch.Alarm] = [
            *self.front.alarms,
            any_in_period(
                self,
                "LookupErrorsAlarm",
                description="The lookup function failed (an unhandled error, a timeout or out of memory).",
                metric=self.function.metric_errors(statistic="Sum", period=PERIOD),
            ),
        ]

    def allow_exports(self, queue: sqs.IQueue, bucket: s3.IBucket) -> None:
        """``GET /datasets/{name}/export`` asks the loader for an export on ``queue`` and links to it once written:
        it may send there, and read (HEAD, and sign links to) the exports, nothing else."""
        self.function.add_environment("EXPORT_QUEUE_URL", queue.queue_url)
        self.function.add_to_role_policy(iam.PolicyStatement(actions=["sqs:SendMessage"], resources=[queue.queue_arn]))
        exports = f"{EXPORTS_PREFIX}*"
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=["s3:GetObject"], resources=[bucket.arn_for_objects(exports)])
        )
        # The marker that an export was asked for, put only if absent (or replacing a stale one): one message each
        markers = building_key(exports)
        self.function.add_to_role_policy(
            iam.PolicyStatement(actions=["s3:PutObject"], resources=[bucket.arn_for_objects(markers)])
        )
        nag.acknowledge(
            self.role,
            f"AwsSolutions-IAM5[Resource::{nag.arn_token(bucket)}/{exports}]",
            "Exports are read and linked to under _exports/, one object per version and format.",
        )
        nag.acknowledge(
            self.role,
            f"AwsSolutions-IAM5[Resource::{nag.arn_token(bucket)}/{markers}]",
            "An export asked for is marked under _exports/, one empty marker per version and format; the function "
            "may write nothing else.",
        )

    @property
    def url(self) -> str:
        return self.front.url
