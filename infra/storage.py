"""Storage: the ranges table and the bucket that range files are uploaded to.

The table is always a ``dynamodb.Table`` with the same construct id, whatever the capacity mode, so switching
mode is an in-place UpdateTable and never a replacement (TableV2 cannot hold fixed provisioned write capacity,
which the prewarm step needs).
"""

from __future__ import annotations

from typing import Final, TypedDict

import aws_cdk as cdk
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_s3 as s3
from constructs import Construct

from fencepost.core.storage.job_keys import JOBS_PREFIX
from fencepost.core.storage.keys import PK, SK
from fencepost.core.storage.objects import REPORTS_PREFIX
from infra import nag
from infra.alarms import PERIOD, any_in_period, sustained
from infra.athena import results_rule
from infra.settings import DeploySettings
from infra.table_capacity import Capacity, TableCapacity

TABLE_ID: Final = "RangesTable"
# Load reports are read by people, soon after their load; nothing the service reads later is under REPORTS_PREFIX
# (what versions are read from is under KEPT_PREFIX, which no rule expires: tests/integration/test_iam.py).
REPORTS_EXPIRE_AFTER: Final = cdk.Duration.days(90)
# Enrichment jobs' inputs, outputs and summaries (core.storage.job_keys): a job's results are fetched soon after it
# ends; what must stay is copied elsewhere.
JOBS_EXPIRE_AFTER: Final = cdk.Duration.days(30)
# Versioning lets a deleted or overwritten range file be restored (which reloads it); old versions then expire.
NONCURRENT_EXPIRE_AFTER: Final = cdk.Duration.days(30)
# Write throttling alarms only when it lasts: throttled writes in 6 of the last 7 five-minute periods (30 of the last
# 35 minutes). An on-demand table serves up to twice its previous peak at once, and traffic that more than doubles
# it within 30 minutes may be throttled while DynamoDB adds capacity (AWS: "If you exceed double your previous
# traffic's peak within 30 minutes, then you might experience throttling"). So a large load on a table that has
# not served that rate before throttles for up to about half an hour, and finishes (the loader retries). Longer
# means the table is not growing: a maxWriteUnits cap or a PROVISIONED (prewarm) table below what the loaders send,
# or a hot partition. One quiet period in the window does not reset the count.
WRITE_THROTTLE_PERIODS: Final = 6
WRITE_THROTTLE_WINDOW: Final = 7


class Storage(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, settings: DeploySettings) -> None:
        super().__init__(scope, construct_id)
        removal = cdk.RemovalPolicy.DESTROY if settings.destroy_on_delete else cdk.RemovalPolicy.RETAIN
        self.table = dynamodb.Table(
            self,
            TABLE_ID,
            partition_key=dynamodb.Attribute(name=PK, type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name=SK, type=dynamodb.AttributeType.NUMBER),
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            removal_policy=removal,
            # A retained table is also protected from a manual delete; a disposable dev stack is not.
            deletion_protection=not settings.destroy_on_delete,
            **_capacity_props(settings.capacity),
        )
        if settings.capacity.mode is Capacity.PREWARM:
            # CDK leaves out BillingMode for PROVISIONED (CloudFormation's default); say it, so the mode can be read
            # from the template and the switch back to on-demand is a visible BillingMode change.
            table_resource = self.table.node.default_child
            assert isinstance(table_resource, dynamodb.CfnTable)
            table_resource.add_property_override("BillingMode", dynamodb.BillingMode.PROVISIONED.value)
        _warn_about_capacity(self.table, settings.capacity)
        self.bucket = s3.Bucket(
            self,
            "RangeFiles",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            minimum_tls_version=1.2,
            versioned=True,
            lifecycle_rules=[
                s3.LifecycleRule(id="expire-load-reports", prefix=REPORTS_PREFIX, expiration=REPORTS_EXPIRE_AFTER),
                s3.LifecycleRule(id="expire-enrichment-jobs", prefix=JOBS_PREFIX, expiration=JOBS_EXPIRE_AFTER),
                results_rule(settings.athena),
                s3.LifecycleRule(
                    id="expire-old-versions",
                    noncurrent_version_expiration=NONCURRENT_EXPIRE_AFTER,
                    expired_object_delete_marker=True,
                    abort_incomplete_multipart_upload_after=cdk.Duration.days(7),
                ),
            ],
            removal_policy=removal,
            auto_delete_objects=settings.destroy_on_delete,
        )
        nag.acknowledge(
            self.bucket,
            "AwsSolutions-S1",
            "Server access logs are skipped: the bucket is private and holds range files uploaded by operators with "
            "IAM access, and every object the loader reads is named, with its ETag, in its load report under "
            "_reports/. CloudTrail does not record object writes by default: enable its S3 data events for this "
            "bucket where an audit trail of uploads is required (docs/deploy.md).",
        )
        self.alarms = [
            any_in_period(
                self,
                "ReadThrottleAlarm",
                description="Lookups are being throttled by DynamoDB (the API answers 503 UNAVAILABLE).",
                metric=self.table.metric("ReadThrottleEvents", statistic="Sum", period=PERIOD),
            ),
            sustained(
                self,
                "WriteThrottleAlarm",
                description=(
                    f"DynamoDB has throttled writes in {WRITE_THROTTLE_PERIODS} of the last {WRITE_THROTTLE_WINDOW} "
                    "five-minute periods: longer than an on-demand table takes to grow for a load. Loads go on "
                    "(the loader retries) but slowly. Likely a maxWriteUnits cap or a PROVISIONED (prewarm) table "
                    "below loaderConcurrency x writeRate: lower writeRate, raise the cap, or warm the table "
                    "(docs/deploy.md)."
                ),
                metric=self.table.metric("WriteThrottleEvents", statistic="Sum", period=PERIOD),
                periods=WRITE_THROTTLE_PERIODS,
                of=WRITE_THROTTLE_WINDOW,
            ),
        ]


def _warn_about_capacity(table: dynamodb.Table, capacity: TableCapacity) -> None:
    """What a deployer must check around this deploy, printed by the synth (what no synth can check without AWS)."""
    if capacity.mode is Capacity.WARM:
        cdk.Annotations.of(table).add_warning_v2(
            "fencepost:warm-throughput-only-goes-up",
            f"WarmThroughput {capacity.warm_read_units} read / {capacity.warm_write_units} write units/s can only "
            "go up: DynamoDB refuses a value below the table's current one (which grows with traffic, and after a "
            "prewarm) and the deploy rolls back. Before raising it, read the current value: aws dynamodb "
            "describe-table --table-name <TableName> --query Table.WarmThroughput (docs/deploy.md).",
        )
    elif capacity.mode is Capacity.PREWARM:
        cdk.Annotations.of(table).add_warning_v2(
            "fencepost:prewarm-is-billed-until-switched-back",
            f"The table is PROVISIONED at {capacity.prewarm_write_units} WCU / {capacity.prewarm_read_units} RCU, "
            "billed by the hour until it is switched back. Switch back with a plain deploy that changes nothing "
            "else (make diff shows only the table), then check aws dynamodb describe-table --table-name "
            "<TableName> --query Table.BillingModeSummary: a failed update rolls the table back to PROVISIONED "
            "(docs/deploy.md).",
        )


class _CapacityProps(TypedDict, total=False):
    billing_mode: dynamodb.BillingMode
    read_capacity: int
    write_capacity: int
    max_read_request_units: int | None
    max_write_request_units: int | None
    warm_throughput: dynamodb.WarmThroughput


def _capacity_props(capacity: TableCapacity) -> _CapacityProps:
    """The Table properties of one capacity mode (docs/deploy.md says when to use which)."""
    if capacity.mode is Capacity.PREWARM:
        return _CapacityProps(
            billing_mode=dynamodb.BillingMode.PROVISIONED,
            read_capacity=capacity.prewarm_read_units,
            write_capacity=capacity.prewarm_write_units,
        )
    props = _CapacityProps(
        billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
        max_read_request_units=capacity.max_read_units,
        max_write_request_units=capacity.max_write_units,
    )
    if capacity.mode is Capacity.WARM:
        props["warm_throughput"] = dynamodb.WarmThroughput(
            read_units_per_second=capacity.warm_read_units,
            write_units_per_second=capacity.warm_write_units,
        )
    return props
