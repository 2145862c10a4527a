"""The sources' fetch function in the synthesized template: its role (exactly the calls a round makes), the schedule
that starts it, its size and environment, and the secrets it may read."""

from __future__ import annotations

import json
from typing import Any

from fencepost.core.folders.limits import Limits
from tests.support.synthesis import arn_join, default_bus, environment, granted, on
from tests.synth import Synth


def test_fetch_role_may_only_read_sources_write_fetched_objects_and_source_states(default: Synth) -> None:
    fetched = arn_join(default, "bucket", "/*/_fetched/*")
    secrets = {
        "Fn::Join": [
            "",
            [
                "arn:",
                {"Ref": "AWS::Partition"},
                ":secretsmanager:",
                {"Ref": "AWS::Region"},
                ":",
                {"Ref": "AWS::AccountId"},
                ":secret:fencepost/*",
            ],
        ]
    }
    assert granted(default, "fetch_role") == (
        on(default.arn("fetch_logs"), "logs:CreateLogStream", "logs:PutLogEvents")
        | on(default.arn("bucket"), "s3:ListBucket")
        | on(arn_join(default, "bucket", "/_source.json"), "s3:GetObject")
        | on(arn_join(default, "bucket", "/*/_source.json"), "s3:GetObject")
        | on(fetched, "s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:DeleteObject")
        | on(default.arn("table"), "dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:DeleteItem")
        | on(secrets, "secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret")  # its fencepost:hosts tag
        | on(default_bus(), "events:PutEvents")  # a dataset turned stale, a source turned failing
    )
    # and its table calls only ever reach the #sources partition
    statements = [
        statement
        for policy in default.of_type("AWS::IAM::Policy").values()
        if default.ref("fetch_role") in policy["Properties"]["Roles"]
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if "dynamodb:GetItem" in statement["Action"]
    ]
    assert [s["Condition"] for s in statements] == [
        {"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": ["#sources"]}}
    ]
    # but for the Query that reads the datasets' records, to count the stale ones: that partition, read only
    reads = [
        statement
        for policy in default.of_type("AWS::IAM::Policy").values()
        if default.ref("fetch_role") in policy["Properties"]["Roles"]
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement["Action"] == "dynamodb:Query"
    ]
    assert [s["Condition"] for s in reads] == [{"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": ["#datasets"]}}]


def test_a_schedule_invokes_the_fetch_function_every_five_minutes_and_nothing_else(default: Synth) -> None:
    schedule = default.props("fetch_schedule")
    assert schedule["ScheduleExpression"] == "rate(5 minutes)"
    assert schedule["FlexibleTimeWindow"] == {"Mode": "OFF"}
    assert schedule["Target"]["Arn"] == default.arn("fetch_function")
    assert schedule["Target"]["RetryPolicy"] == {"MaximumRetryAttempts": 0}
    role = schedule["Target"]["RoleArn"]["Fn::GetAtt"][0]
    invokes = set()
    for policy in default.of_type("AWS::IAM::Policy").values():
        if {"Ref": role} in policy["Properties"]["Roles"]:
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                invokes.add((statement["Action"], json.dumps(statement["Resource"], sort_keys=True)))
    assert invokes == {("lambda:InvokeFunction", json.dumps(default.arn("fetch_function"), sort_keys=True))}
    trust = default.resources[role]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert [t["Principal"] for t in trust] == [{"Service": "scheduler.amazonaws.com"}]
    assert [t["Condition"] for t in trust] == [{"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}}]


def test_fetch_function_runtime_size_and_environment(default: Synth) -> None:
    props = default.props("fetch_function")
    assert (props["Runtime"], props["Architectures"], props["Handler"]) == (
        "python3.12",
        ["arm64"],
        "fencepost.handlers.fetch.handler",
    )
    assert (props["MemorySize"], props["EphemeralStorage"], props["Timeout"]) == (512, {"Size": 3072}, 900)
    env = environment(default, "fetch_function")
    assert env["TABLE_NAME"] == default.ref("table")
    assert env["BUCKET_NAME"] == default.ref("bucket")
    assert (env["SOURCE_MIN_EVERY_SECONDS"], env["SOURCE_HTTPS_ONLY"]) == ("300", "true")
    assert env["SOURCE_ALLOW_LOOPBACK"] == "false"  # on AWS, loopback is the Lambda runtime API
    assert (env["FETCH_ROUND_SECONDS"], env["FETCH_CHECK_SECONDS"]) == ("240", "120")
    assert env["MAX_OBJECT_BYTES"] == str(Limits().max_object_bytes)


def test_the_secrets_a_source_may_name_are_a_deploy_choice(synthesize: Any) -> None:
    synth = synthesize(sourceSecretPrefix="feeds/maxmind-")
    resources = {r for _, r in granted(synth, "fetch_role") if "secretsmanager" in r}
    assert len(resources) == 1
    assert resources.pop().endswith(':secret:feeds/maxmind-*"]]}')
