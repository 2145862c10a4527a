"""The Glue Spark job: its script and package as assets, and a role of exactly its calls."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.context import SettingsError
from infra.settings import DeploySettings
from tests.support.synthesis import arn_join, granted
from tests.synth import Synth


def test_the_job_runs_the_script_on_glue_5_with_the_package_and_a_security_configuration(default: Synth) -> None:
    job = default.props("spark_job")

    assert (job["GlueVersion"], job["WorkerType"], job["NumberOfWorkers"], job["MaxRetries"]) == ("5.0", "G.1X", 2, 0)
    assert job["Command"]["Name"] == "glueetl"
    assert job["Command"]["ScriptLocation"]["Fn::Sub"].endswith(".py")
    assert job["DefaultArguments"]["--extra-py-files"]["Fn::Sub"].endswith(".zip")
    assert job["Role"] == default.arn("spark_role")
    security = default.only("AWS::Glue::SecurityConfiguration")
    assert security["EncryptionConfiguration"] == {"S3Encryptions": [{"S3EncryptionMode": "SSE-S3"}]}


def _bucket_objects(synth: Synth, prefix: str) -> str:
    return json.dumps(arn_join(synth, "bucket", f"/{prefix}*"), sort_keys=True)


def test_the_role_reads_tables_and_assets_writes_its_outputs_and_logs_and_nothing_else(default: Synth) -> None:
    allowed = granted(default, "spark_role")
    by_action: dict[str, set[str]] = {}
    for action, resource in allowed:
        by_action.setdefault(action, set()).add(resource)

    assert set(by_action) == {
        "s3:GetObject",
        "s3:PutObject",
        "s3:DeleteObject",
        "s3:ListBucket",
        "logs:CreateLogGroup",
        "logs:CreateLogStream",
        "logs:PutLogEvents",
    }
    assert _bucket_objects(default, "_tables/") in by_action["s3:GetObject"]
    assert len(by_action["s3:GetObject"]) == 3  # the tables, the script, the package: each asset its own key
    assert by_action["s3:PutObject"] == by_action["s3:DeleteObject"] == {_bucket_objects(default, "_enrich/spark/")}
    assert by_action["s3:ListBucket"] == {json.dumps(default.arn("bucket"), sort_keys=True)}
    assert all("log-group:/aws-glue/*" in resource for resource in by_action["logs:PutLogEvents"])


def test_inputs_named_at_deploy_are_readable_and_nothing_more(synthesize: Any) -> None:
    chosen = synthesize(sparkInputs="my-logs/alb/, other-logs")
    reads = {resource for action, resource in granted(chosen, "spark_role") if action == "s3:GetObject"}

    assert any("s3:::my-logs/alb/*" in resource for resource in reads)
    assert any("s3:::other-logs/*" in resource for resource in reads)
    assert len(reads) == 5


@pytest.mark.parametrize("value", ["Bad_Bucket", "ab", "logs bucket/x"])
def test_a_bad_input_is_refused_naming_the_key(value: str) -> None:
    with pytest.raises(SettingsError, match="sparkInputs must be bucket or bucket/prefix items"):
        DeploySettings.from_context({"sparkInputs": value}.get)
