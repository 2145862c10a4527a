"""The stack's alarms, storage and outputs, read from the synthesized template: what each alarm watches and says, where
it sends, the bucket and table kept or destroyed, the outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fencepost
from infra.fetcher import METRICS_SERVICE as FETCH_SERVICE
from infra.loader import MAX_RECEIVES
from tests.support.synthesis import DEAD_LETTERS
from tests.synth import Synth

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
        ("ApproximateNumberOfMessagesVisible", ids["tables_dead_letters"]),  # a version's Parquet or Glue tables
        ("5xx", ids["api"]),
        ("Errors", ids["lookup_function"]),
        ("Errors", ids["loader_function"]),
        ("Errors", ids["fetch_function"]),
        ("Errors", ids["tables_function"]),
        ("ReadThrottleEvents", ids["table"]),
        ("WriteThrottleEvents", ids["table"]),
        ("LoadsFailed", LOADER_SERVICE),
        ("LoadsStalled", LOADER_SERVICE),
        ("SinkFailed", LOADER_SERVICE),  # a push to a folder's sinks (docs/sinks.md)
        ("SourcesFailing", FETCH_SERVICE),
        ("SourcesStale", FETCH_SERVICE),
        ("DatasetsStale", FETCH_SERVICE),
        ("Invocations", ids["fetch_function"]),
    }
    heartbeat = alarms.pop(("Invocations", ids["fetch_function"]))
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
    # The sources' alarms come from the fetch function's own metrics: one on Lambda's count of its invocations
    # breaches when the function stops running, however it stopped (no data is silence)
    assert (heartbeat["Threshold"], heartbeat["ComparisonOperator"]) == (1, "LessThanThreshold")
    assert (heartbeat["Statistic"], heartbeat["Period"], heartbeat["EvaluationPeriods"]) == ("Sum", 300, 3)
    assert heartbeat["TreatMissingData"] == "breaching"
    assert "has not run for 15 minutes" in heartbeat["AlarmDescription"]


@pytest.mark.parametrize("metric", ["SourcesFailing", "SourcesStale", "DatasetsStale"])
def test_a_failing_or_stale_source_or_a_stale_dataset_raises_an_alarm_at_once(default: Synth, metric: str) -> None:
    # Given the fetch function's own figure at each round (EMF: sources failing or stale, datasets stale)
    props = _alarms(default)[(metric, FETCH_SERVICE)]

    # Then one round that counts one is enough
    assert props["Namespace"] == "Fencepost"
    assert props["Dimensions"] == [{"Name": "service", "Value": FETCH_SERVICE}]
    assert props["Statistic"] == "Maximum"
    assert props["EvaluationPeriods"] == 1


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
    from fencepost.bootstrap.loader_wiring import loader_function
    from fencepost.observability import NAMESPACE
    from infra.functions import METRICS_NAMESPACE
    from infra.loader import METRICS_SERVICE

    # The loader as its handler wires it (nothing is called at wiring: the names need not exist)
    names = {"TABLE_NAME": "t", "BUCKET_NAME": "b", "CONTROL_QUEUE_URL": "c", "DATA_QUEUE_URL": "d"}
    wired = loader_function(names)
    assert {wired.obs.logger.service, wired.obs.metrics.service} == {METRICS_SERVICE} == {LOADER_SERVICE}
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
        "FetchFunctionName",
        "FetchLogGroup",
        "AthenaWorkGroup",
        "SparkJobName",
    }
    assert outputs["AthenaWorkGroup"]["Value"] == default.ref("workgroup")
    assert outputs["SparkJobName"]["Value"] == default.ref("spark_job")
    assert outputs["FetchLogGroup"]["Value"] == default.ref("fetch_logs")
    assert outputs["FetchFunctionName"]["Value"] == default.ref("fetch_function")
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
