"""The checks every synth must pass: cdk-nag (AwsSolutions), cfn-lint with the serverless rules (checkov: in
``test_scanners``), and `cdk synth` itself, offline."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from infra import scan
from infra.application import REPO_ROOT
from tests.support.synthesis import ALL_OPTIONS, Synthesize
from tests.synth import Synth

CONTEXTS = {
    "default": {},
    "all-options": ALL_OPTIONS,
    "prewarm": {"capacity": "prewarm"},
    "warm-with-caps": {"capacity": "warm", "maxReadUnits": "50000", "maxWriteUnits": "20000"},
}


def _nag(synth: Synth) -> dict[str, Any]:
    assert synth.report is not None, "cdk-nag did not run: no validation report"
    (report,) = (r for r in synth.report["pluginReports"] if r["pluginName"] == "AwsSolutions")
    assert isinstance(report, dict)
    return report


@pytest.mark.parametrize("name", ["default", "all-options"])
def test_cdk_nag_finds_nothing_unacknowledged_with_the_real_asset(name: str, synthesize: Synthesize) -> None:
    # Given the app as `cdk synth` builds it (real asset, cdk-nag plugin) / When synthesized (it would raise)
    synth = synthesize(real=True, **CONTEXTS[name])

    # Then AwsSolutions reports success and every accepted finding carries a written reason
    report = _nag(synth)
    assert report["conclusion"] == "success"
    assert report["violations"] == []
    for finding in report["suppressedViolations"]:
        assert len(finding["reason"]) > 40, finding["ruleName"]


def test_cdk_nag_acknowledgments_are_the_expected_ones(synthesize: Synthesize) -> None:
    acknowledged = {f["ruleName"].split("[")[0] for f in _nag(synthesize(real=True))["suppressedViolations"]}

    assert acknowledged == {
        "AwsSolutions-S1",
        "AwsSolutions-L1",
        "AwsSolutions-APIG4",
        "AwsSolutions-IAM4",
        "AwsSolutions-IAM5",
        "AwsSolutions-GL1",  # the Glue Spark job's logs: CloudWatch's own encryption (infra/spark_job.py)
        "AwsSolutions-GL3",  # nor job bookmarks to encrypt with a key of its own
    }


def test_iam_auth_acknowledges_no_authorization_except_on_the_preflight_and_console_routes(
    synthesize: Synthesize,
) -> None:
    findings = _nag(synthesize(real=True, **ALL_OPTIONS))["suppressedViolations"]
    unauthorized = {
        construct["constructPath"]
        for finding in findings
        if finding["ruleName"] == "AwsSolutions-APIG4"
        for construct in finding["violatingConstructs"]
    }

    assert unauthorized == {
        "Fencepost/LookupApi/HttpApi/OPTIONS--{proxy+}/Resource",
        "Fencepost/LookupApi/HttpApi/GET--console/Resource",
        "Fencepost/LookupApi/HttpApi/GET--console--{asset}/Resource",
    }


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_cfn_lint_with_the_serverless_rules_passes_but_the_checks_ignored_with_a_reason(
    name: str, synthesize: Synthesize
) -> None:
    synth = synthesize(**CONTEXTS[name])

    assert scan.cfn_lint(synth.template_file) == []


def test_cdk_synth_works_offline_without_credentials(tmp_path: Path) -> None:
    # Given the pinned CDK CLI and no AWS credentials or configuration at all
    npx = shutil.which("npx")
    if npx is None or not (REPO_ROOT / "node_modules" / ".bin" / "cdk").exists():
        pytest.skip("the pinned CDK CLI is not installed (make install)")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AWS_", "CDK_"))}
    env |= {
        "AWS_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
        "CDK_DISABLE_CLI_TELEMETRY": "true",
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    out = tmp_path / "cdk.out"

    # When `cdk synth` runs the app command from cdk.json
    result = subprocess.run(
        [npx, "--no-install", "cdk", "synth", "--no-notices", "--quiet", "--output", str(out)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    # Then it writes the template (cdk-nag ran and passed, or the synth would have failed)
    assert result.returncode == 0, result.stderr[-4000:]
    template = json.loads((out / "Fencepost.template.json").read_text())
    assert "AWS::DynamoDB::Table" in {r["Type"] for r in template["Resources"].values()}
    report = json.loads((out / "validation-report.json").read_text())
    assert {r["conclusion"] for r in report["pluginReports"]} == {"success"}
    # and it says that, without an alarm email, the alarms notify nobody
    assert "alarms notify nobody: deploy with -c alarmEmail=" in result.stderr


def test_acknowledgment_reasons_claim_nothing_the_stack_does_not_do(synthesize: Synthesize) -> None:
    # CloudTrail records S3 object writes only as data events, which are off by default: no reason may rely on it.
    for finding in _nag(synthesize(real=True))["suppressedViolations"]:
        assert "audited by CloudTrail" not in finding["reason"], finding["ruleName"]
