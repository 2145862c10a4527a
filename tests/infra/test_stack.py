"""The stack's wiring, read from the synthesized template: functions, permissions, triggers, API, alarms, outputs."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

import fencepost
from fencepost.core.limits import Limits
from infra.loader import MAX_RECEIVES
from tests.infra.conftest import Synth, Synthesize

ALL_OPTIONS = {
    "auth": "iam",
    "tracing": "on",
    "removal": "destroy",
    "alarmEmail": "ops@example.com",
    "corsOrigins": "https://app.example.com, https://admin.example.com",
    "rateLimit": "50",
    "burstLimit": "100",
    "loaderConcurrency": "4",
    "controlConcurrency": "3",
    "writeRate": "2500",
    "logAddresses": "false",
    "logLevel": "debug",
}


@pytest.fixture(scope="module")
def default(synthesize: Synthesize) -> Synth:
    return synthesize()


@pytest.fixture(scope="module")
def options(synthesize: Synthesize) -> Synth:
    return synthesize(**ALL_OPTIONS)


def _permissions(synth: Synth, role: str) -> set[tuple[str, str]]:
    """Every (action, resource) pair the role's policies allow, however CDK merged the statements."""
    allowed: set[tuple[str, str]] = set()
    for policy in synth.of_type("AWS::IAM::Policy").values():
        props = policy["Properties"]
        if synth.ref(role) not in props["Roles"]:
            continue
        for statement in props["PolicyDocument"]["Statement"]:
            assert statement["Effect"] == "Allow"
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
            allowed |= {(action, json.dumps(resource, sort_keys=True)) for action in actions for resource in resources}
    return allowed


def _on(resource: Any, *actions: str) -> set[tuple[str, str]]:
    return {(action, json.dumps(resource, sort_keys=True)) for action in actions}


def _join(synth: Synth, name: str, suffix: str) -> dict[str, Any]:
    return {"Fn::Join": ["", [synth.arn(name), suffix]]}


QUEUES = ("control_queue", "data_queue")
DEAD_LETTERS = ("control_dead_letters", "data_dead_letters")


def _env(synth: Synth, function: str) -> dict[str, Any]:
    env: dict[str, Any] = synth.props(function)["Environment"]["Variables"]
    return env


# --- the functions -----------------------------------------------------------------------------------------------


def test_lookup_function_runtime_size_and_environment(default: Synth) -> None:
    props = default.props("lookup_function")

    assert props["Runtime"] == "python3.12"
    assert props["Architectures"] == ["arm64"]
    assert props["Handler"] == "fencepost.handlers.lookup.handler"
    assert props["MemorySize"] == 512
    assert props["Timeout"] == 10
    assert "ReservedConcurrentExecutions" not in props
    assert props["LoggingConfig"] == {
        "LogGroup": default.ref("lookup_logs"),
        "LogFormat": "JSON",
        "SystemLogLevel": "WARN",  # no START, END or REPORT line per lookup
        "ApplicationLogLevel": "WARN",
    }
    assert _env(default, "lookup_function") == {
        "TABLE_NAME": default.ref("table"),
        "BUCKET_NAME": default.ref("bucket"),
        "DEFAULT_DATASET": "default",
        "CACHE_TTL_SECONDS": "60",
        "CACHE_MAX_AGE_SECONDS": "300",
        "MAX_BATCH": "100",
        "BATCH_CONCURRENCY": "16",
        "LOG_ADDRESSES": "true",
        "TRACING": "false",
        "POWERTOOLS_SERVICE_NAME": "fencepost",
        "POWERTOOLS_METRICS_NAMESPACE": "Fencepost",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "METRICS_INTERVAL_SECONDS": "60",
        "DYNAMODB_READ_TIMEOUT_SECONDS": "2",
        # the lookup's limits: tests/infra/test_lookup_limits.py
        "LIVE_CACHE_ENTRIES": "1024",
        "NEGATIVE_CACHE_TTL_SECONDS": "5",
        "VERSION_CACHE_ENTRIES": "128",
        "VERSION_CACHE_BYTES": "67108864",
        "RANGE_CACHE_BYTES": "134217728",
        "RESPONSE_BUDGET_BYTES": "4500000",
        "CORS_ORIGINS": "*",
    }


def test_loader_function_runtime_size_and_environment(default: Synth) -> None:
    props = default.props("loader_function")

    assert props["Runtime"] == "python3.12"
    assert props["Architectures"] == ["arm64"]
    assert props["Handler"] == "fencepost.handlers.loader.handler"
    assert props["MemorySize"] == 3008
    assert props["Timeout"] == 900
    assert props["RecursiveLoop"] == "Allow"  # it feeds its own queues
    assert "ReservedConcurrentExecutions" not in props
    assert props["LoggingConfig"] == {
        "LogGroup": default.ref("loader_logs"),
        "LogFormat": "JSON",
        "SystemLogLevel": "WARN",
        "ApplicationLogLevel": "INFO",  # a load's progress
    }
    assert _env(default, "loader_function") == {
        "TABLE_NAME": default.ref("table"),
        "BUCKET_NAME": default.ref("bucket"),
        "CONTROL_QUEUE_URL": default.ref("control_queue"),
        "DATA_QUEUE_URL": default.ref("data_queue"),
        "CACHE_TTL_SECONDS": _env(default, "lookup_function")["CACHE_TTL_SECONDS"],
        "SETTLE_SECONDS": "10",
        "CHUNK_ITEMS": "5000",
        "WRITE_THREADS": "8",
        "WRITE_RATE": "0",
        "WRITE_PACING": "true",
        "MAX_RECEIVES": str(MAX_RECEIVES),
        "DEADLINE_MARGIN_SECONDS": "20",
        "RETRY_BASE_SECONDS": "5",
        "STALL_SECONDS": "1800",
        "WRITER_TIMEOUT_SECONDS": "900",
        **Limits().environment(),  # (tests/infra/test_loader_limits.py)
        "TRACING": "false",
        "POWERTOOLS_SERVICE_NAME": "fencepost",
        "POWERTOOLS_METRICS_NAMESPACE": "Fencepost",
        "POWERTOOLS_LOG_LEVEL": "INFO",
    }


def test_function_logs_are_kept_one_month(default: Synth) -> None:
    for logs in ("lookup_logs", "loader_logs"):
        assert default.props(logs)["RetentionInDays"] == 30


def test_context_reaches_the_function_environments(options: Synth) -> None:
    assert _env(options, "lookup_function")["LOG_ADDRESSES"] == "false"
    assert _env(options, "loader_function")["WRITE_RATE"] == "2500"
    for function in ("lookup_function", "loader_function"):
        assert _env(options, function)["POWERTOOLS_LOG_LEVEL"] == "DEBUG"


# --- permissions -------------------------------------------------------------------------------------------------


def test_lookup_role_may_only_read_items_changes_files_and_write_its_logs(default: Synth) -> None:
    assert _permissions(default, "lookup_role") == (
        _on(default.arn("lookup_logs"), "logs:CreateLogStream", "logs:PutLogEvents")
        | _on(default.arn("table"), "dynamodb:GetItem", "dynamodb:Query")
        | _on(_join(default, "bucket", "/_reports/*.changes.gz"), "s3:GetObject")
    )


def test_loader_role_permissions_are_exactly_the_calls_it_makes(default: Synth) -> None:
    bucket, objects = default.arn("bucket"), _join(default, "bucket", "/*")
    reports = _join(default, "bucket", "/_reports/*")
    table = (
        "dynamodb:BatchWriteItem",
        "dynamodb:DeleteItem",
        "dynamodb:DescribeTable",
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
    )
    # Lambda's polling (receive, delete, attributes), a handed-back message's new delay, and sending; on each queue
    queue = (
        "sqs:ChangeMessageVisibility",
        "sqs:DeleteMessage",
        "sqs:GetQueueAttributes",
        "sqs:ReceiveMessage",
        "sqs:SendMessage",
    )

    assert _permissions(default, "loader_role") == (
        _on(default.arn("loader_logs"), "logs:CreateLogStream", "logs:PutLogEvents")
        | _on(bucket, "s3:ListBucket")
        | _on(objects, "s3:GetObject")
        | _on(reports, "s3:PutObject")
        | _on(_join(default, "bucket", "/_reports/*.pieces.gz"), "s3:DeleteObject")
        | _on(_join(default, "bucket", "/_reports/*.changes.gz"), "s3:DeleteObject")
        | _on(default.arn("table"), *table)
        | _on(default.arn("control_queue"), *queue)
        | _on(default.arn("data_queue"), *queue)
    )  # and nothing on the dead-letter queues: only SQS moves messages there


def test_no_role_may_scan_batch_get_read_streams_lock_or_tag(default: Synth, options: Synth) -> None:
    broad = {"dynamodb:Scan", "dynamodb:BatchGetItem", "dynamodb:GetRecords", "dynamodb:GetShardIterator"}
    broad |= {"s3:PutObjectLegalHold", "s3:PutObjectRetention", "s3:PutObjectTagging", "s3:Abort*", "sqs:GetQueueUrl"}
    for synth in (default, options):
        for role in ("lookup_role", "loader_role"):
            actions = {action for action, _ in _permissions(synth, role)}
            assert not actions & broad, role
            assert not {action for action in actions if "*" in action}, role


def test_loader_event_source_mappings_keep_their_logical_ids(default: Synth) -> None:
    # The mappings are made without SqsEventSource (whose grant adds GetQueueUrl) under the construct ids it used:
    # an existing stack updates them in place (Lambda refuses a second mapping of one queue to one function)
    mappings = {
        props["Properties"]["EventSourceArn"]["Fn::GetAtt"][0]: logical_id
        for logical_id, props in default.of_type("AWS::Lambda::EventSourceMapping").items()
    }

    assert mappings == {
        default.ids["control_queue"]: "LoaderLoaderFunctionSqsEventSourceFencepostLoaderControlQueue416981469C143D60",
        default.ids["data_queue"]: "LoaderLoaderFunctionSqsEventSourceFencepostLoaderDataQueue2B86BAFF249DE6CF",
    }


def test_function_roles_have_no_managed_policies(default: Synth) -> None:
    for role in ("lookup_role", "loader_role"):
        props = default.props(role)
        assert "ManagedPolicyArns" not in props
        assert props["AssumeRolePolicyDocument"]["Statement"] == [
            {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}}
        ]


def test_tracing_adds_only_the_x_ray_permissions(default: Synth, options: Synth) -> None:
    xray = _on("*", "xray:PutTelemetryRecords", "xray:PutTraceSegments")
    for role in ("lookup_role", "loader_role"):
        assert not _permissions(default, role) & xray
        assert _permissions(options, role) & xray == xray
        assert {resource for _, resource in _permissions(options, role) - xray} != {json.dumps("*")}


# --- tracing -----------------------------------------------------------------------------------------------------


def test_tracing_is_off_by_default(default: Synth) -> None:
    for function in ("lookup_function", "loader_function"):
        assert default.props(function).get("TracingConfig", {"Mode": "PassThrough"}) != {"Mode": "Active"}
        assert _env(default, function)["TRACING"] == "false"


def test_tracing_on_makes_both_functions_active(options: Synth) -> None:
    for function in ("lookup_function", "loader_function"):
        assert options.props(function)["TracingConfig"] == {"Mode": "Active"}
        assert _env(options, function)["TRACING"] == "true"


# --- loader triggers ---------------------------------------------------------------------------------------------


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
    """The event source mappings by the queue they read ("control_queue", "data_queue")."""
    by_arn = {json.dumps(synth.arn(queue), sort_keys=True): queue for queue in (*QUEUES, *DEAD_LETTERS)}
    mappings = {}
    for mapping in synth.of_type("AWS::Lambda::EventSourceMapping").values():
        props = mapping["Properties"]
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
    assert str(props["RedrivePolicy"]["maxReceiveCount"]) == _env(default, "loader_function")["MAX_RECEIVES"]
    assert props["MessageRetentionPeriod"] == 4 * 24 * 60 * 60
    assert parked["MessageRetentionPeriod"] == 14 * 24 * 60 * 60
    assert "RedrivePolicy" not in parked


def test_the_loader_has_two_queues_and_two_dead_letter_queues(default: Synth) -> None:
    assert set(default.of_type("AWS::SQS::Queue")) == {default.ids[name] for name in (*QUEUES, *DEAD_LETTERS)}


def test_queues_refuse_unencrypted_transport(default: Synth) -> None:
    denied = {
        json.dumps(s["Resource"], sort_keys=True)
        for p in default.of_type("AWS::SQS::QueuePolicy").values()
        for s in p["Properties"]["PolicyDocument"]["Statement"]
        if s["Effect"] == "Deny" and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    }

    assert denied == {json.dumps(default.arn(q), sort_keys=True) for q in (*QUEUES, *DEAD_LETTERS)}


def test_sweep_invokes_the_loader_every_five_minutes(default: Synth) -> None:
    rule = default.props("sweep")

    assert rule["ScheduleExpression"] == "rate(5 minutes)"
    assert rule["State"] == "ENABLED"
    assert [target["Arn"] for target in rule["Targets"]] == [default.arn("loader_function")]
    assert [target["RetryPolicy"] for target in rule["Targets"]] == [{"MaximumRetryAttempts": 0}]
    invoke_config = default.only("AWS::Lambda::EventInvokeConfig")
    assert invoke_config["FunctionName"] == default.ref("loader_function")
    assert invoke_config["MaximumRetryAttempts"] == 0
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
    assert fields["sourceIp"] == "$context.identity.sourceIp"
    assert "sourceIp" not in json.loads(options.props("stage")["AccessLogSettings"]["Format"])
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


# --- alarms ------------------------------------------------------------------------------------------------------


def _alarms(synth: Synth) -> dict[tuple[str, str], dict[str, Any]]:
    """Alarms by (metric name, the resource its dimension points at, or the dimension's value)."""
    found = {}
    for alarm in synth.of_type("AWS::CloudWatch::Alarm").values():
        props = alarm["Properties"]
        (dimension,) = props["Dimensions"]
        value = dimension["Value"]
        if not isinstance(value, str):
            value = value["Ref"] if "Ref" in value else value["Fn::GetAtt"][0]
        found[(props["MetricName"], value)] = props
    return found


LOADER_SERVICE = "fencepost-loader"


def test_alarms_watch_dead_letters_errors_failed_and_stalled_loads_and_throttling(default: Synth) -> None:
    alarms = _alarms(default)
    ids = default.ids

    assert set(alarms) == {
        ("ApproximateNumberOfMessagesVisible", ids["control_dead_letters"]),
        ("ApproximateNumberOfMessagesVisible", ids["data_dead_letters"]),
        ("5xx", ids["api"]),
        ("Errors", ids["lookup_function"]),
        ("Errors", ids["loader_function"]),
        ("ReadThrottleEvents", ids["table"]),
        ("WriteThrottleEvents", ids["table"]),
        ("LoadsFailed", LOADER_SERVICE),
        ("LoadsStalled", LOADER_SERVICE),
    }
    for props in alarms.values():
        assert props["Threshold"] == 1
        assert props["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
        assert props["Period"] == 300
        assert props["TreatMissingData"] == "notBreaching"
        assert "AlarmActions" not in props
    for dead_letters in DEAD_LETTERS:
        parked = alarms[("ApproximateNumberOfMessagesVisible", ids[dead_letters])]
        assert parked["Namespace"] == "AWS/SQS"
        assert parked["Statistic"] == "Maximum"
    assert alarms[("5xx", ids["api"])]["Namespace"] == "AWS/ApiGateway"


@pytest.mark.parametrize("metric", ["LoadsFailed", "LoadsStalled"])
def test_a_failed_or_stalled_load_raises_an_alarm_at_once(default: Synth, metric: str) -> None:
    # Given the loader's own metric (EMF: namespace Fencepost, dimension service=fencepost-loader), summed
    props = _alarms(default)[(metric, LOADER_SERVICE)]

    # Then one occurrence in five minutes is enough
    assert props["Namespace"] == "Fencepost"
    assert props["Dimensions"] == [{"Name": "service", "Value": LOADER_SERVICE}]
    assert props["Statistic"] == "Sum"
    assert props["EvaluationPeriods"] == 1
    assert "DatapointsToAlarm" not in props


def test_failed_and_stalled_load_alarms_say_what_happened_and_what_to_do(default: Synth) -> None:
    failed = _alarms(default)[("LoadsFailed", LOADER_SERVICE)]["AlarmDescription"]
    stalled = _alarms(default)[("LoadsStalled", LOADER_SERVICE)]["AlarmDescription"]

    assert "FAILED" in failed
    assert "_reports/" in failed
    assert "live version keeps answering" in failed
    assert "sweep" in stalled
    assert "stopped making progress" in stalled


def test_the_alarmed_metrics_are_the_ones_the_loader_writes() -> None:
    # The loader's handler writes its metrics under its own service, in the namespace the alarms watch
    from fencepost.observability import NAMESPACE
    from infra.functions import METRICS_NAMESPACE
    from infra.loader import METRICS_SERVICE

    handler = ast.parse((Path(fencepost.__file__).parent / "handlers" / "loader.py").read_text())
    services = {
        keyword.value.value
        for node in ast.walk(handler)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Observability"
        for keyword in node.keywords
        if keyword.arg == "service" and isinstance(keyword.value, ast.Constant)
    }
    assert services == {METRICS_SERVICE} == {LOADER_SERVICE}
    assert NAMESPACE == METRICS_NAMESPACE
    sources = "".join(path.read_text() for path in (Path(fencepost.__file__).parent / "loading").glob("*.py"))
    for metric in ("LoadsFailed", "LoadsStalled"):
        assert f'name="{metric}"' in sources, metric


def test_write_throttling_alarms_only_when_it_lasts_half_an_hour(default: Synth) -> None:
    # A large load on a table that has not yet served its rate is throttled for up to ~30 minutes, and finishes
    write = _alarms(default)[("WriteThrottleEvents", default.ids["table"])]
    read = _alarms(default)[("ReadThrottleEvents", default.ids["table"])]

    assert (write["DatapointsToAlarm"], write["EvaluationPeriods"], write["Period"]) == (6, 7, 300)
    assert "6 of the last 7" in write["AlarmDescription"]
    # while a throttled lookup is an error answered to a caller: at once
    assert read["EvaluationPeriods"] == 1
    assert "DatapointsToAlarm" not in read


def test_each_dead_letter_alarm_says_which_queue_and_what_failed(default: Synth) -> None:
    alarms = _alarms(default)
    control = alarms[("ApproximateNumberOfMessagesVisible", default.ids["control_dead_letters"])]["AlarmDescription"]
    data = alarms[("ApproximateNumberOfMessagesVisible", default.ids["data_dead_letters"])]["AlarmDescription"]

    assert "control dead-letter queue" in control
    assert "notification" in control
    assert "build" in control
    assert "data dead-letter queue" in data
    assert "chunk" in data
    assert "deletion" in data
    for description in (control, data):
        assert f"failed {MAX_RECEIVES} times" in description
        assert "redrive" in description


def test_alarm_email_sends_every_alarm_to_one_topic(options: Synth) -> None:
    (topic,) = options.of_type("AWS::SNS::Topic")
    subscription = options.only("AWS::SNS::Subscription")

    assert subscription["Protocol"] == "email"
    assert subscription["Endpoint"] == "ops@example.com"
    for props in _alarms(options).values():
        assert props["AlarmActions"] == [{"Ref": topic}]
        assert props["OKActions"] == [{"Ref": topic}]


def test_cloudwatch_may_publish_to_the_alarm_topic(options: Synth) -> None:
    # The TLS-only topic has a resource policy of its own, which replaces SNS's default: without an Allow for
    # CloudWatch, alarms could never publish (and no e-mail would ever arrive).
    (topic,) = options.of_type("AWS::SNS::Topic")
    policy = options.only("AWS::SNS::TopicPolicy")
    assert policy["Topics"] == [{"Ref": topic}]
    allows = [s for s in policy["PolicyDocument"]["Statement"] if s["Effect"] == "Allow"]
    assert len(allows) == 1
    (allow,) = allows
    assert allow["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    assert allow["Action"] == "sns:Publish"
    assert allow["Resource"] == {"Ref": topic}
    assert allow["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    assert "aws:SourceArn" in allow["Condition"]["ArnLike"]
    denies = [s for s in policy["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]
    assert [d["Condition"] for d in denies] == [{"Bool": {"aws:SecureTransport": "false"}}]


# --- storage and removal ----------------------------------------------------------------------------------------


def test_bucket_is_private_encrypted_tls_only_and_expires_reports(default: Synth) -> None:
    bucket = default.props("bucket")

    assert bucket["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert bucket["BucketEncryption"] == {
        "ServerSideEncryptionConfiguration": [{"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
    }
    rules = {rule["Id"]: rule for rule in bucket["LifecycleConfiguration"]["Rules"]}
    assert rules["expire-load-reports"]["Prefix"] == "_reports/"
    assert rules["expire-load-reports"]["ExpirationInDays"] == 90
    (policy,) = default.of_type("AWS::S3::BucketPolicy").values()
    tls = [s for s in policy["Properties"]["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]
    assert {json.dumps(s["Condition"], sort_keys=True) for s in tls} >= {
        json.dumps({"Bool": {"aws:SecureTransport": "false"}})
    }


def test_table_and_bucket_are_retained_by_default(default: Synth) -> None:
    for name in ("table", "bucket"):
        assert default.resource(name)["DeletionPolicy"] == "Retain"
        assert default.resource(name)["UpdateReplacePolicy"] == "Retain"
    assert default.props("table")["DeletionProtectionEnabled"] is True
    assert not default.of_type("Custom::S3AutoDeleteObjects")


def test_removal_destroy_makes_a_disposable_stack(options: Synth) -> None:
    for name in ("table", "bucket"):
        assert options.resource(name)["DeletionPolicy"] == "Delete"
    assert options.props("table")["DeletionProtectionEnabled"] is False
    assert len(options.of_type("Custom::S3AutoDeleteObjects")) == 1


# --- outputs -----------------------------------------------------------------------------------------------------


def test_outputs_name_the_api_bucket_table_queues_and_log_groups(default: Synth) -> None:
    outputs = default.template["Outputs"]

    assert set(outputs) == {
        "ApiUrl",
        "BucketName",
        "TableName",
        "ControlQueueUrl",
        "DataQueueUrl",
        "ControlDeadLetterQueueUrl",
        "DataDeadLetterQueueUrl",
        "LookupLogGroup",
        "LoaderLogGroup",
    }
    assert outputs["LookupLogGroup"]["Value"] == default.ref("lookup_logs")
    assert outputs["LoaderLogGroup"]["Value"] == default.ref("loader_logs")
    assert outputs["BucketName"]["Value"] == default.ref("bucket")
    assert outputs["TableName"]["Value"] == default.ref("table")
    assert outputs["ControlQueueUrl"]["Value"] == default.ref("control_queue")
    assert outputs["DataQueueUrl"]["Value"] == default.ref("data_queue")
    assert outputs["ControlDeadLetterQueueUrl"]["Value"] == default.ref("control_dead_letters")
    assert outputs["DataDeadLetterQueueUrl"]["Value"] == default.ref("data_dead_letters")
    url = json.dumps(outputs["ApiUrl"]["Value"])  # (the function URL's: tests/infra/test_fronts.py)
    assert default.ids["api"] in url
    assert "execute-api" in url
