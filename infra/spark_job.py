"""The Glue Spark job that enriches a prefix of logs or CSV with datasets' tables (``spark/enrich_job.py``).

Glue 5.0 (Spark 3.5, Python 3.11), the script and the ``fencepost`` package (a zip of ``lambdas/``, given as
``--extra-py-files``) as assets. Its role may read the assets, the datasets' tables (``_tables/``) and what the
deploy names as inputs (``-c sparkInputs=bucket/prefix,...``: nothing else by default), write under the bucket's
``_enrich/spark/`` only, and write its own logs. A run says the rest:

    aws glue start-job-run --job-name <SparkJobName> --arguments '{"--input": "s3://logs/alb/2026/11/29/",
      "--format": "csv", "--address_column": "client_ip",
      "--datasets": "geo=s3://<bucket>/_tables/geo/version=12/", "--output": "s3://<bucket>/_enrich/spark/run1/"}'
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_glue as glue
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct

from fencepost.core.storage.objects import TABLES_PREFIX
from infra import nag
from infra.context import ContextGetter, SettingsError, text

ROOT: Final = Path(__file__).resolve().parent.parent
SCRIPT: Final = ROOT / "spark" / "enrich_job.py"
PACKAGE: Final = ROOT / "lambdas"  # zipped with fencepost/ at its root, as --extra-py-files wants it
OUTPUT_PREFIX: Final = "_enrich/spark/"
GLUE_VERSION: Final = "5.0"
WORKERS: Final = 2  # G.1X workers (4 vCPU, 16 GB each): the smallest Spark job; a run may ask for more
TIMEOUT_MINUTES: Final = 120
BUCKET_NAME: Final = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


def spark_inputs(get: ContextGetter) -> tuple[str, ...]:
    """``-c sparkInputs=bucket/prefix,...``: where the job may read rows from (a bucket alone: all of it)."""
    inputs = tuple(item.strip().strip("/") for item in text(get, "sparkInputs", "").split(",") if item.strip())
    for item in inputs:
        if not BUCKET_NAME.fullmatch(item.split("/", 1)[0]):
            raise SettingsError(f"sparkInputs must be bucket or bucket/prefix items, not {item!r}")
    return inputs


def _object_arns(item: str) -> tuple[str, str]:
    bucket, _, prefix = item.partition("/")
    objects = f"arn:{cdk.Aws.PARTITION}:s3:::{bucket}/{prefix + '/' if prefix else ''}*"
    return f"arn:{cdk.Aws.PARTITION}:s3:::{bucket}", objects


class SparkJob(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, bucket: s3.IBucket, inputs: tuple[str, ...]) -> None:
        super().__init__(scope, construct_id)
        script = s3_assets.Asset(self, "Script", path=str(SCRIPT))
        package = s3_assets.Asset(self, "Package", path=str(PACKAGE), exclude=["**/__pycache__", "**/*.pyc"])
        self.role = iam.Role(
            self,
            "Role",
            assumed_by=iam.ServicePrincipal("glue.amazonaws.com"),
            description="The Glue Spark job enriching rows with the datasets' tables",
        )
        self._grant(bucket, (script, package), inputs)
        # What the job writes to S3 is encrypted (SSE-S3, as the bucket is); its logs and bookmarks: below
        security = glue.CfnSecurityConfiguration(
            self,
            "Security",
            name=f"{cdk.Stack.of(self).stack_name}-spark-job",
            encryption_configuration=glue.CfnSecurityConfiguration.EncryptionConfigurationProperty(
                s3_encryptions=[glue.CfnSecurityConfiguration.S3EncryptionProperty(s3_encryption_mode="SSE-S3")],
            ),
        )
        self.job = glue.CfnJob(
            self,
            "Job",
            role=self.role.role_arn,
            security_configuration=security.ref,
            glue_version=GLUE_VERSION,
            worker_type="G.1X",
            number_of_workers=WORKERS,
            timeout=TIMEOUT_MINUTES,
            max_retries=0,
            command=glue.CfnJob.JobCommandProperty(
                name="glueetl", python_version="3", script_location=script.s3_object_url
            ),
            default_arguments={
                "--extra-py-files": package.s3_object_url,
                "--job-language": "python",
                "--enable-continuous-cloudwatch-log": "true",
            },
            description="Rows of logs or CSV with the datasets' answers: spark/enrich_job.py (docs/tables.md)",
        )
        nag.acknowledge(
            self.job,
            "AwsSolutions-GL1",
            "The job's logs hold row counts and errors, not the rows: CloudWatch's default encryption is enough.",
        )
        nag.acknowledge(
            self.job,
            "AwsSolutions-GL3",
            "The job writes Parquet to a bucket encrypted at rest (SSE-S3); no job bookmarks are kept.",
        )

    def _grant(self, bucket: s3.IBucket, assets: tuple[s3_assets.Asset, ...], inputs: tuple[str, ...]) -> None:
        """Exactly the job's calls: its assets read, the tables read, its outputs written, its inputs read, its
        logs written; each wildcard under a named prefix, acknowledged with its reason."""
        role, stack = self.role, cdk.Stack.of(self)
        for asset in assets:
            objects = asset.bucket.arn_for_objects(asset.s3_object_key)
            role.add_to_policy(iam.PolicyStatement(actions=["s3:GetObject"], resources=[objects]))
        role.add_to_policy(
            iam.PolicyStatement(actions=["s3:GetObject"], resources=[bucket.arn_for_objects(f"{TABLES_PREFIX}*")])
        )
        output = bucket.arn_for_objects(f"{OUTPUT_PREFIX}*")
        role.add_to_policy(iam.PolicyStatement(actions=["s3:PutObject", "s3:DeleteObject"], resources=[output]))
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["s3:ListBucket"],
                resources=[bucket.bucket_arn],
                conditions={"StringLike": {"s3:prefix": [f"{TABLES_PREFIX}*", f"{OUTPUT_PREFIX}*"]}},
            )
        )
        arn = nag.arn_token(bucket)
        why = {
            TABLES_PREFIX: "It reads the datasets' tables, a folder per dataset and version under _tables/.",
            OUTPUT_PREFIX: "It writes (and replaces) its runs' outputs under _enrich/spark/, a folder per run.",
        }
        for prefix, reason in why.items():
            nag.acknowledge(role, f"AwsSolutions-IAM5[Resource::{arn}/{prefix}*]", reason)
        for item in inputs:
            bucket_arn, objects = _object_arns(item)
            role.add_to_policy(iam.PolicyStatement(actions=["s3:GetObject"], resources=[objects]))
            role.add_to_policy(iam.PolicyStatement(actions=["s3:ListBucket"], resources=[bucket_arn]))
            named = objects.replace(cdk.Aws.PARTITION, "<AWS::Partition>")  # as cdk-nag names it
            nag.acknowledge(role, f"AwsSolutions-IAM5[Resource::{named}]", "An input the deploy names (sparkInputs).")
        logs = f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:/aws-glue/*"
        actions = ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
        role.add_to_policy(iam.PolicyStatement(actions=actions, resources=[logs]))
        nag.acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:/aws-glue/*]",
            "Glue writes a job's logs to log groups it names under /aws-glue/ (its output, error and continuous logs).",
        )
