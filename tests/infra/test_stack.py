"""The stack's wiring, read from the synthesized template: functions, permissions, triggers, API, alarms, outputs."""

from __future__ import annotations

import json

from fencepost.core.folders.limits import Limits
from infra.loader import MAX_RECEIVES
from tests.support.synthesis import arn_join, default_bus, environment, granted, on
from tests.synth import Synth

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
    assert environment(default, "lookup_function") == {
        "TABLE_NAME": default.ref("table"),
        "BUCKET_NAME": default.ref("bucket"),
        "EXPORT_QUEUE_URL": default.ref("data_queue"),
        "TABLES_QUEUE_URL": default.ref("tables_queue"),  # Parquet exports: the tables function writes them
        "DEFAULT_DATASET": "default",
        "CACHE_TTL_SECONDS": "60",
        "CACHE_MAX_AGE_SECONDS": "300",
        "MAX_BATCH": "100",
        "BATCH_CONCURRENCY": "16",
        "LOG_ADDRESSES": "false",
        "TRACING": "false",
        "POWERTOOLS_SERVICE_NAME": "fencepost",
        "POWERTOOLS_METRICS_NAMESPACE": "Fencepost",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "METRICS_INTERVAL_SECONDS": "60",
        "MMDB_EXPORT_MAX_RANGES": "500000",
        "DIFF_SCAN_PIECES": "100000",
        "DYNAMODB_READ_TIMEOUT_SECONDS": "2",
        "TRUSTED_PROXIES": "none",  # ip=me is the connection's address
        "FORWARDED_MAX_ENTRIES": "20",
        # the lookup's limits: tests/infra/test_lookup_limits.py
        "LIVE_CACHE_ENTRIES": "1024",
        "NEGATIVE_CACHE_TTL_SECONDS": "5",
        "VERSION_CACHE_ENTRIES": "128",
        "VERSION_CACHE_BYTES": "67108864",
        "RANGE_CACHE_BYTES": "134217728",
        "INDEX_CACHE_BYTES": "67108864",
        "KEYED_CACHE_BYTES": "100663296",
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
    assert environment(default, "loader_function") == {
        "TABLE_NAME": default.ref("table"),
        "BUCKET_NAME": default.ref("bucket"),
        "CONTROL_QUEUE_URL": default.ref("control_queue"),
        "DATA_QUEUE_URL": default.ref("data_queue"),
        "TABLES_QUEUE_URL": default.ref("tables_queue"),  # each version going live
        "SINK_PREFIX": "Fencepost",  # the WAF IP sets of folders' sinks are named after the stack
        "CHANGE_EVENTS": "true",  # each change of a dataset on the default bus (docs/events.md)
        "EVENTS_SOURCE": "fencepost",
        "EVENTS_SECONDS": "2",
        "CACHE_TTL_SECONDS": environment(default, "lookup_function")["CACHE_TTL_SECONDS"],
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
        "ENRICH_PART_BYTES": str(64 << 20),
        "ENRICH_MAX_PARTS": "5000",
        "ENRICH_PARTS_IN_FLIGHT": "8",
        **Limits().environment(),  # (tests/infra/test_loader_limits.py)
        "KEYED_CACHE_BYTES": environment(default, "lookup_function")["KEYED_CACHE_BYTES"],  # jobs join as lookups
        "TRACING": "false",
        "POWERTOOLS_SERVICE_NAME": "fencepost",
        "POWERTOOLS_METRICS_NAMESPACE": "Fencepost",
        "POWERTOOLS_LOG_LEVEL": "INFO",
    }


def test_function_logs_are_kept_one_month(default: Synth) -> None:
    for logs in ("lookup_logs", "loader_logs"):
        assert default.props(logs)["RetentionInDays"] == 30


def test_context_reaches_the_function_environments(options: Synth) -> None:
    assert environment(options, "lookup_function")["LOG_ADDRESSES"] == "true"
    assert environment(options, "loader_function")["WRITE_RATE"] == "2500"
    for function in ("lookup_function", "loader_function"):
        assert environment(options, function)["POWERTOOLS_LOG_LEVEL"] == "DEBUG"


# --- permissions -------------------------------------------------------------------------------------------------


def test_lookup_role_may_only_read_items_kept_files_and_jobs_ask_for_exports_and_write_its_logs(default: Synth) -> None:
    assert granted(default, "lookup_role") == (
        on(default.arn("data_queue"), "sqs:SendMessage")  # asking the loader for an export
        | on(default.arn("tables_queue"), "sqs:SendMessage")  # and the tables function for a Parquet one
        | on(arn_join(default, "bucket", "/_exports/*"), "s3:GetObject")  # and linking to it once written
        | on(arn_join(default, "bucket", "/_exports/*.building"), "s3:PutObject")  # its marker, once
        | on(default.arn("bucket"), "s3:ListBucket")  # a missing object is then a 404, not a 403
        | on(default.arn("lookup_logs"), "logs:CreateLogStream", "logs:PutLogEvents")
        | on(default.arn("table"), "dynamodb:GetItem", "dynamodb:Query")
        | on(arn_join(default, "bucket", "/_kept/*"), "s3:GetObject")
        | on(arn_join(default, "bucket", "/_enrich/*/_plan.json"), "s3:GetObject")  # GET /enrich/{job}: a job's
        | on(arn_join(default, "bucket", "/_enrich/*/summary.json"), "s3:GetObject")  # plan and summary, no file
        | on(arn_join(default, "bucket", "/_reports/*.pieces.gz"), "s3:GetObject")  # versions built before _kept/
        | on(arn_join(default, "bucket", "/_reports/*.changes.gz"), "s3:GetObject")
        | on(arn_join(default, "bucket", "/_reports/*.index.*.gz"), "s3:GetObject")
        | on(arn_join(default, "bucket", "/_reports/*.values.*.gz"), "s3:GetObject")
    )


def test_loader_role_permissions_are_exactly_the_calls_it_makes(default: Synth) -> None:
    bucket, objects = default.arn("bucket"), arn_join(default, "bucket", "/*")
    reports = arn_join(default, "bucket", "/_reports/*")
    exports = arn_join(default, "bucket", "/_exports/*")
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

    assert granted(default, "loader_role") == (
        on(default.arn("loader_logs"), "logs:CreateLogStream", "logs:PutLogEvents")
        | on(bucket, "s3:ListBucket")
        | on(objects, "s3:GetObject")
        | on(reports, "s3:PutObject")
        | on(exports, "s3:AbortMultipartUpload", "s3:DeleteObject", "s3:PutObject")
        | on(arn_join(default, "bucket", "/_kept/*"), "s3:DeleteObject", "s3:PutObject")
        | on(arn_join(default, "bucket", "/_enrich/*"), "s3:AbortMultipartUpload", "s3:DeleteObject", "s3:PutObject")
        | on(arn_join(default, "bucket", "/_reports/*.pieces.gz"), "s3:DeleteObject")
        | on(arn_join(default, "bucket", "/_reports/*.changes.gz"), "s3:DeleteObject")
        | on(arn_join(default, "bucket", "/_reports/*.index.*.gz"), "s3:DeleteObject")
        | on(arn_join(default, "bucket", "/_reports/*.values.*.gz"), "s3:DeleteObject")
        | on(default.arn("table"), *table)
        | on(default.arn("control_queue"), *queue)
        | on(default.arn("data_queue"), *queue)
        | on(default.arn("tables_queue"), "sqs:SendMessage")  # each version going live
        | on(arn_join(default, "bucket", "/_tables/*"), "s3:DeleteObject")  # a deleted version's Parquet file
        | {grant for grant in granted(default, "loader_role") if grant[0].startswith("wafv2:")}  # test_stack_sinks
        | on(default_bus(), "events:PutEvents")  # its change events (tests/infra/test_stack_events.py)
    )  # and nothing on the dead-letter queues: only SQS moves messages there


def test_no_role_may_scan_batch_get_read_streams_lock_or_tag(default: Synth, options: Synth) -> None:
    broad = {"dynamodb:Scan", "dynamodb:BatchGetItem", "dynamodb:GetRecords", "dynamodb:GetShardIterator"}
    broad |= {"s3:PutObjectLegalHold", "s3:PutObjectRetention", "s3:PutObjectTagging", "s3:Abort*", "sqs:GetQueueUrl"}
    for synth in (default, options):
        for role in ("lookup_role", "loader_role"):
            actions = {action for action, _ in granted(synth, role)}
            assert not actions & broad, role
            assert not {action for action in actions if "*" in action}, role


def test_loader_event_source_mappings_keep_their_logical_ids(default: Synth) -> None:
    # The mappings are made without SqsEventSource (whose grant adds GetQueueUrl) under the construct ids it used:
    # an existing stack updates them in place (Lambda refuses a second mapping of one queue to one function)
    mappings = {
        props["Properties"]["EventSourceArn"]["Fn::GetAtt"][0]: logical_id
        for logical_id, props in default.of_type("AWS::Lambda::EventSourceMapping").items()
    }

    tables = default.ids["tables_queue"]
    assert mappings.pop(tables) == "TablesTablesFunctionSqsEventSourceFencepostTablesQueue8764F152B9E679BD"
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
    xray = on("*", "xray:PutTelemetryRecords", "xray:PutTraceSegments")
    for role in ("lookup_role", "loader_role"):
        assert not granted(default, role) & xray
        assert granted(options, role) & xray == xray
        assert {resource for _, resource in granted(options, role) - xray} != {json.dumps("*")}


# --- tracing -----------------------------------------------------------------------------------------------------


def test_tracing_is_off_by_default(default: Synth) -> None:
    for function in ("lookup_function", "loader_function"):
        assert default.props(function).get("TracingConfig", {"Mode": "PassThrough"}) != {"Mode": "Active"}
        assert environment(default, function)["TRACING"] == "false"


def test_tracing_on_makes_both_functions_active(options: Synth) -> None:
    for function in ("lookup_function", "loader_function"):
        assert options.props(function)["TracingConfig"] == {"Mode": "Active"}
        assert environment(options, function)["TRACING"] == "true"


# --- loader triggers ---------------------------------------------------------------------------------------------
