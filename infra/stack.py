"""The Fencepost stack: it only wires the three constructs together and names what a deployer needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cloudwatch_actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from infra import nag
from infra.athena import Athena
from infra.change_events import ChangeEvents
from infra.fetcher import Sources
from infra.loader import Loader
from infra.lookup_api import LookupApi
from infra.settings import DeploySettings
from infra.sinks import Sinks
from infra.spark_job import SparkJob
from infra.storage import Storage
from infra.tables_function import Tables

# The singleton Lambda that CDK adds to configure bucket notifications (s3.Bucket.add_event_notification).
BUCKET_NOTIFICATIONS_HANDLER = "BucketNotificationsHandler050a0587b7544547bf325f094a3db834"


class FencepostStack(cdk.Stack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: DeploySettings,
        lambda_asset: Path,
        tables_asset: Path | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.storage = Storage(self, "Storage", settings=settings)
        self.lookup_api = LookupApi(
            self,
            "LookupApi",
            table=self.storage.table,
            bucket=self.storage.bucket,
            asset=lambda_asset,
            settings=settings,
        )
        self.loader = Loader(
            self,
            "Loader",
            table=self.storage.table,
            bucket=self.storage.bucket,
            asset=lambda_asset,
            settings=settings,
        )
        self.sources = Sources(
            self,
            "Sources",
            table=self.storage.table,
            bucket=self.storage.bucket,
            asset=lambda_asset,
            settings=settings,
        )
        self.lookup_api.allow_exports(self.loader.data_queue, self.storage.bucket)
        announcers = [self.loader.function, self.sources.function]
        self.change_events = ChangeEvents(self, "ChangeEvents", settings=settings, announcers=announcers)
        storage = self.storage
        asset = tables_asset or lambda_asset
        self.tables = Tables(self, "Tables", table=storage.table, bucket=storage.bucket, asset=asset, settings=settings)
        self.tables.told_by(self.loader.function, self.lookup_api.function, self.storage.bucket)
        self.athena = Athena(
            self, "Athena", bucket=storage.bucket, database=self.tables.database, settings=settings.athena
        )
        self.spark_job = SparkJob(self, "SparkJob", bucket=storage.bucket, inputs=settings.spark_inputs)
        self.sinks = Sinks(self, "Sinks", loader=self.loader.function, prefix_lists=settings.sink_prefix_lists)
        self._alarm_notifications(settings.alarm_email)
        self._bucket_notifications_handler()

        cdk.CfnOutput(self, "ApiUrl", value=self.lookup_api.url, description="Base URL of the lookup API")
        cdk.CfnOutput(self, "BucketName", value=self.storage.bucket.bucket_name, description="Upload range files here")
        cdk.CfnOutput(self, "TableName", value=self.storage.table.table_name, description="The ranges table")
        cdk.CfnOutput(self, "AthenaWorkGroup", value=self.athena.workgroup.ref, description="Saved queries of the logs")
        cdk.CfnOutput(self, "SparkJobName", value=self.spark_job.job.ref, description="aws glue start-job-run")
        loader = self.loader
        for output, queue, description in (
            ("ControlQueueUrl", loader.control_queue, "The loader's control queue: S3 notifications, build requests"),
            ("DataQueueUrl", loader.data_queue, "The loader's data queue: chunk writes, old versions' deletions"),
            ("ControlDeadLetterQueueUrl", loader.control_dead_letters, "Control messages that failed every attempt"),
            ("DataDeadLetterQueueUrl", loader.data_dead_letters, "Data messages that failed every attempt"),
        ):
            cdk.CfnOutput(self, output, value=queue.queue_url, description=description)
        cdk.CfnOutput(
            self,
            "LookupLogGroup",
            value=self.lookup_api.function.log_group.log_group_name,
            description="aws logs tail <this> --follow",
        )
        cdk.CfnOutput(
            self,
            "LoaderLogGroup",
            value=self.loader.function.log_group.log_group_name,
            description="aws logs tail <this> --follow",
        )
        cdk.CfnOutput(
            self,
            "FetchLogGroup",
            value=self.sources.function.log_group.log_group_name,
            description="aws logs tail <this> --follow",
        )
        cdk.CfnOutput(
            self,
            "FetchFunctionName",
            value=self.sources.function.function_name,
            description="Check a folder's source now: aws lambda invoke --function-name <this> --payload "
            '\'{"dataset": "<name>"}\' out.json',
        )

    @property
    def alarms(self) -> list[cloudwatch.Alarm]:
        return [
            *self.storage.alarms,
            *self.lookup_api.alarms,
            *self.loader.alarms,
            *self.sources.alarms,
            *self.tables.alarms,
            *self.sinks.alarms,
        ]

    def _alarm_notifications(self, email: str | None) -> None:
        if email is None:
            cdk.Annotations.of(self).add_warning_v2(
                "fencepost:alarmEmail",
                f"the stack's {len(self.alarms)} alarms notify nobody: deploy with -c alarmEmail=you@example.com "
                "(an SNS topic with that address subscribed), or subscribe to the alarms yourself",
            )
            return
        topic = sns.Topic(self, "AlarmTopic", display_name="Fencepost alarms", enforce_ssl=True)
        # enforce_ssl gives the topic a resource policy (a Deny of plain HTTP); that policy replaces the default
        # one, so CloudWatch needs its own Allow to publish the alarms, scoped to this account's alarms.
        topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchAlarmsPublish",
                actions=["sns:Publish"],
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                resources=[topic.topic_arn],
                conditions={
                    "StringEquals": {"aws:SourceAccount": self.account},
                    "ArnLike": {
                        "aws:SourceArn": f"arn:{self.partition}:cloudwatch:{self.region}:{self.account}:alarm:*"
                    },
                },
            )
        )
        topic.add_subscription(subscriptions.EmailSubscription(email))
        action = cloudwatch_actions.SnsAction(topic)
        for alarm in self.alarms:
            alarm.add_alarm_action(action)
            alarm.add_ok_action(action)

    def _bucket_notifications_handler(self) -> None:
        """CDK's own function that configures the bucket's notifications at deploy time: its memory set to what
        Lambda gives it by default (128 MB, all it needs), so that no function's size is left implicit."""
        handler = self.node.try_find_child(BUCKET_NOTIFICATIONS_HANDLER)
        if handler is None:
            return
        function = handler.node.find_child("Resource")
        assert isinstance(function, cdk.CfnResource)
        function.add_property_override("MemorySize", 128)
        nag.acknowledge(
            handler,
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
            "CDK's own bucket-notifications custom resource (runs only at deploy time); its role is not ours to shape.",
        )
