"""The stack's loader triggers and HTTP API, read from the synthesized template: notifications, queue policies, event
sources, queues and their dead letters, the sweep; the API's route, stage, access logs and CORS."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.synthesis import DEAD_LETTERS, QUEUES, environment
from tests.synth import Synth


def test_bucket_sends_created_and_removed_notifications_for_all_keys_to_the_control_queue_only(
    default: Synth,
) -> None:
    notifications = default.only("Custom::S3BucketNotifications")

    assert notifications["BucketName"] == default.ref("bucket")
    assert notifications["NotificationConfiguration"] == {
        "QueueConfigurations": [
            {"Events": ["s3:ObjectCreated:*"], "QueueArn": default.arn("control_queue")},
            {"Events": ["s3:ObjectRemoved:*"], "QueueArn": default.arn("control_queue")},
        ]
    }


def _queue_policy_allows(synth: Synth, queue: str) -> list[dict[str, Any]]:
    policies = [
        p["Properties"]
        for p in synth.of_type("AWS::SQS::QueuePolicy").values()
        if synth.ref(queue) in p["Properties"]["Queues"]
    ]
    return [s for p in policies for s in p["PolicyDocument"]["Statement"] if s["Effect"] == "Allow"]


def test_queue_policies_let_only_this_bucket_send_and_only_to_the_control_queue(default: Synth) -> None:
    assert _queue_policy_allows(default, "control_queue") == [
        {
            "Action": ["sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"],
            "Condition": {
                "ArnLike": {"aws:SourceArn": default.arn("bucket")},
                # A bucket of the same name, re-created in another account, cannot send
                "StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}},
            },
            "Effect": "Allow",
            "Principal": {"Service": "s3.amazonaws.com"},
            "Resource": default.arn("control_queue"),
        }
    ]
    for queue in ("data_queue", *DEAD_LETTERS):
        assert _queue_policy_allows(default, queue) == []


def _mappings(synth: Synth) -> dict[str, dict[str, Any]]:
    """The loader's event source mappings by the queue they read ("control_queue", "data_queue")."""
    by_arn = {json.dumps(synth.arn(queue), sort_keys=True): queue for queue in (*QUEUES, *DEAD_LETTERS)}
    mappings = {}
    for mapping in synth.of_type("AWS::Lambda::EventSourceMapping").values():
        props = mapping["Properties"]
        if props["FunctionName"] == synth.ref("loader_function"):
            mappings[by_arn[json.dumps(props["EventSourceArn"], sort_keys=True)]] = props
    return mappings


def test_the_loader_consumes_both_queues_in_batches_of_one_with_item_failures(default: Synth) -> None:
    mappings = _mappings(default)

    assert set(mappings) == set(QUEUES)  # and never a dead-letter queue
    for props in mappings.values():
        assert props["FunctionName"] == default.ref("loader_function")
        assert props["BatchSize"] == 1
        assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


def test_each_queue_has_its_own_maximum_concurrency(default: Synth, options: Synth) -> None:
    concurrency = {queue: props["ScalingConfig"] for queue, props in _mappings(default).items()}
    chosen = {queue: props["ScalingConfig"] for queue, props in _mappings(options).items()}

    assert concurrency == {
        "control_queue": {"MaximumConcurrency": 2},  # notifications and builds: Lambda's minimum
        "data_queue": {"MaximumConcurrency": 10},  # chunk writers: loaderConcurrency
    }
    assert chosen == {"control_queue": {"MaximumConcurrency": 3}, "data_queue": {"MaximumConcurrency": 4}}


@pytest.mark.parametrize("queue", QUEUES)
def test_queue_visibility_is_at_least_six_loader_timeouts(default: Synth, queue: str) -> None:
    visibility = default.props(queue)["VisibilityTimeout"]

    assert visibility >= 6 * default.props("loader_function")["Timeout"]
    assert visibility <= 12 * 60 * 60  # SQS's maximum


@pytest.mark.parametrize(("queue", "dead_letters"), list(zip(QUEUES, DEAD_LETTERS, strict=True)))
def test_queues_use_sse_sqs_and_each_fails_to_its_own_dead_letter_queue(
    default: Synth, queue: str, dead_letters: str
) -> None:
    props, parked = default.props(queue), default.props(dead_letters)

    assert props["SqsManagedSseEnabled"] is True
    assert parked["SqsManagedSseEnabled"] is True
    assert "KmsMasterKeyId" not in props  # S3 cannot send to a queue encrypted with aws/sqs
    assert props["RedrivePolicy"] == {"deadLetterTargetArn": default.arn(dead_letters), "maxReceiveCount": 5}
    assert str(props["RedrivePolicy"]["maxReceiveCount"]) == environment(default, "loader_function")["MAX_RECEIVES"]
    assert props["MessageRetentionPeriod"] == 4 * 24 * 60 * 60
    assert parked["MessageRetentionPeriod"] == 14 * 24 * 60 * 60
    assert "RedrivePolicy" not in parked


def test_the_loader_has_two_queues_and_two_dead_letter_queues(default: Synth) -> None:
    tables = (
        "tables_queue",
        "tables_dead_letters",
    )  # and the tables function its own (tests/infra/test_stack_tables.py)
    assert set(default.of_type("AWS::SQS::Queue")) == {default.ids[name] for name in (*QUEUES, *DEAD_LETTERS, *tables)}


def test_queues_refuse_unencrypted_transport(default: Synth) -> None:
    denied = {
        json.dumps(s["Resource"], sort_keys=True)
        for p in default.of_type("AWS::SQS::QueuePolicy").values()
        for s in p["Properties"]["PolicyDocument"]["Statement"]
        if s["Effect"] == "Deny" and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    }

    every = (*QUEUES, *DEAD_LETTERS, "tables_queue", "tables_dead_letters")  # the tables function's too
    assert denied == {json.dumps(default.arn(q), sort_keys=True) for q in every}


def test_sweep_invokes_the_loader_every_five_minutes(default: Synth) -> None:
    rule = default.props("sweep")

    assert rule["ScheduleExpression"] == "rate(5 minutes)"
    assert rule["State"] == "ENABLED"
    assert [target["Arn"] for target in rule["Targets"]] == [default.arn("loader_function")]
    assert [target["RetryPolicy"] for target in rule["Targets"]] == [{"MaximumRetryAttempts": 0}]
    configs = [c["Properties"] for c in default.of_type("AWS::Lambda::EventInvokeConfig").values()]
    assert {
        "FunctionName": default.ref("loader_function"),
        "MaximumRetryAttempts": 0,
        "Qualifier": "$LATEST",
    } in configs
    permissions = [
        p["Properties"]
        for p in default.of_type("AWS::Lambda::Permission").values()
        if p["Properties"]["Principal"] == "events.amazonaws.com"
    ]
    assert permissions == [
        {
            "Action": "lambda:InvokeFunction",
            "FunctionName": default.arn("loader_function"),
            "Principal": "events.amazonaws.com",
            "SourceArn": default.arn("sweep"),
        }
    ]


# --- the HTTP API ------------------------------------------------------------------------------------------------


def test_api_has_one_default_route_to_the_lookup_function(default: Synth) -> None:
    routes = default.of_type("AWS::ApiGatewayV2::Route")
    integration = default.only("AWS::ApiGatewayV2::Integration")

    assert [r["Properties"]["RouteKey"] for r in routes.values()] == ["$default"]
    assert integration["IntegrationType"] == "AWS_PROXY"
    assert integration["IntegrationUri"] == default.arn("lookup_function")
    assert integration["PayloadFormatVersion"] == "2.0"


def test_api_is_dual_stack(default: Synth) -> None:
    assert default.props("api")["IpAddressType"] == "dualstack"


def test_api_is_public_by_default(default: Synth) -> None:
    route = default.only("AWS::ApiGatewayV2::Route")

    assert route["AuthorizationType"] == "NONE"


def test_auth_iam_requires_signed_requests(options: Synth) -> None:
    routes = {r["Properties"]["RouteKey"]: r for r in options.of_type("AWS::ApiGatewayV2::Route").values()}

    # (CORS preflights have their own route without authorization: tests/infra/test_lookup_limits.py)
    assert routes["$default"]["Properties"]["AuthorizationType"] == "AWS_IAM"


def test_stage_is_the_default_stage_with_throttling(default: Synth, options: Synth) -> None:
    stage = default.props("stage")

    assert stage["StageName"] == "$default"
    assert stage["AutoDeploy"] is True
    assert stage["DefaultRouteSettings"] == {"ThrottlingBurstLimit": 2000, "ThrottlingRateLimit": 1000}
    assert options.props("stage")["DefaultRouteSettings"] == {"ThrottlingBurstLimit": 100, "ThrottlingRateLimit": 50}
    assert len(default.of_type("AWS::ApiGatewayV2::Stage")) == 1


def test_stage_writes_json_access_logs(default: Synth, options: Synth) -> None:
    settings = default.props("stage")["AccessLogSettings"]
    fields = json.loads(settings["Format"])

    assert fields["requestId"] == "$context.requestId"
    assert fields["status"] == "$context.status"
    assert "sourceIp" not in fields  # the caller's address is personal data: logged only with -c logAddresses=true
    assert json.loads(options.props("stage")["AccessLogSettings"]["Format"])["sourceIp"] == "$context.identity.sourceIp"
    log_group = settings["DestinationArn"]["Fn::GetAtt"][0]
    assert default.resources[log_group]["Properties"]["RetentionInDays"] == 30


def test_cors_allows_any_origin_by_default(default: Synth) -> None:
    cors = default.props("api")["CorsConfiguration"]

    assert cors["AllowOrigins"] == ["*"]
    assert cors["AllowMethods"] == ["GET", "POST", "OPTIONS"]
    assert "content-type" in cors["AllowHeaders"]
    assert "retry-after" in cors["ExposeHeaders"]


def test_cors_origins_can_be_restricted(options: Synth) -> None:
    cors = options.props("api")["CorsConfiguration"]

    assert cors["AllowOrigins"] == ["https://app.example.com", "https://admin.example.com"]
    assert cors["AllowMethods"] == ["GET", "POST", "OPTIONS"]
