"""One way to make a Fencepost function: Python 3.12 on arm64, the shared asset, its own log group and role."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra import nag
from infra.alarms import PERIOD
from infra.settings import DeploySettings

# The asset is built for exactly this runtime and architecture (infra.packaging: cp312, manylinux aarch64).
RUNTIME: Final = lambda_.Runtime.PYTHON_3_12
ARCHITECTURE: Final = lambda_.Architecture.ARM_64
LOG_RETENTION: Final = logs.RetentionDays.ONE_MONTH

# Python's level names as Lambda's application log levels.
ALC_LEVELS: Final = {"DEBUG": "DEBUG", "INFO": "INFO", "WARNING": "WARN", "ERROR": "ERROR", "CRITICAL": "FATAL"}

SERVICE: Final = "fencepost"
METRICS_NAMESPACE: Final = "Fencepost"


class PythonFunction(Construct):
    """A function with a role that starts empty (no managed policy) and may only write to its own log group."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        asset: Path,
        handler: str,
        description: str,
        memory_mb: int,
        timeout: cdk.Duration,
        environment: Mapping[str, str],
        settings: DeploySettings,
        log_level: str,
        recursive_loop: lambda_.RecursiveLoop = lambda_.RecursiveLoop.TERMINATE,
        reserved_concurrency: int | None = None,
        snap_start: bool = False,
        ephemeral_mb: int | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        removal = cdk.RemovalPolicy.DESTROY if settings.destroy_on_delete else cdk.RemovalPolicy.RETAIN
        self.log_group = logs.LogGroup(self, "Logs", retention=LOG_RETENTION, removal_policy=removal)
        # Instead of AWSLambdaBasicExecutionRole (logs:* on every log group), write access to this one group.
        self.role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"{description}: grants only, added by the construct that owns the function",
        )
        self.log_group.grant_write(self.role)
        self.function = lambda_.Function(
            self,
            "Function",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            code=lambda_.Code.from_asset(str(asset)),
            handler=handler,
            description=description,
            memory_size=memory_mb,
            ephemeral_storage_size=None if ephemeral_mb is None else cdk.Size.mebibytes(ephemeral_mb),
            timeout=timeout,
            role=self.role,
            log_group=self.log_group,
            tracing=lambda_.Tracing.ACTIVE if settings.tracing else lambda_.Tracing.DISABLED,
            recursive_loop=recursive_loop,
            reserved_concurrent_executions=reserved_concurrency,
            snap_start=lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if snap_start else None,
            # Lambda's advanced logging controls: JSON lines, Lambda's own lines filtered at the system level
            # (WARN drops START, END and REPORT), the function's filtered at its level (see fencepost.observability
            # for how metric lines pass that filter).
            logging_format=lambda_.LoggingFormat.JSON,
            system_log_level_v2=lambda_.SystemLogLevel(settings.system_log_level),
            application_log_level_v2=lambda_.ApplicationLogLevel(ALC_LEVELS[log_level]),
            environment={
                "POWERTOOLS_SERVICE_NAME": SERVICE,
                "POWERTOOLS_METRICS_NAMESPACE": METRICS_NAMESPACE,
                "POWERTOOLS_LOG_LEVEL": log_level,
                "TRACING": flag(settings.tracing),
                **environment,
            },
        )
        nag.acknowledge(
            self.function,
            "AwsSolutions-L1",
            "Pinned to python3.12 on purpose: the asset's compiled wheels (pydantic-core, wrapt) are built for "
            "cp312/aarch64 by infra.packaging; moving runtimes is a deliberate change to both together.",
        )
        if settings.tracing:
            nag.acknowledge(
                self.role,
                "AwsSolutions-IAM5[Resource::*]",
                "X-Ray's PutTraceSegments and PutTelemetryRecords take no resource-level permissions; CDK adds "
                "them with Resource '*' when tracing is on (-c tracing=on).",
            )


def own_metric(service: str, name: str, statistic: str) -> cloudwatch.Metric:
    """A metric a function writes itself (EMF, under its service dimension), aggregated over the alarms' period."""
    return cloudwatch.Metric(
        namespace=METRICS_NAMESPACE,
        metric_name=name,
        dimensions_map={"service": service},
        statistic=statistic,
        period=PERIOD,
    )


def flag(value: bool) -> str:
    """An environment-variable boolean as the handlers' settings read it."""
    return "true" if value else "false"
