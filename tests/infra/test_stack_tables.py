"""The tables function in the template: its own asset and sizes, its queue with a dead-letter queue and alarm, the
Glue database, and a role holding exactly the calls it makes."""

from __future__ import annotations

from infra.tables_function import DATABASE, MAX_RECEIVES, database_name
from tests.support.synthesis import arn_join, environment, granted, on
from tests.synth import Synth


def test_the_tables_function_runs_on_arm64_python_312_with_room_in_tmp_for_the_largest_version(default: Synth) -> None:
    props = default.props("tables_function")
    assert (props["Runtime"], props["Architectures"]) == ("python3.12", ["arm64"])
    assert props["Handler"] == "fencepost.handlers.tables.handler"
    assert (props["MemorySize"], props["Timeout"]) == (1769, 900)
    assert props["EphemeralStorage"] == {"Size": 2048}
    assert environment(default, "tables_function") == {
        "TABLE_NAME": default.ref("table"),
        "BUCKET_NAME": default.ref("bucket"),
        "GLUE_DATABASE": DATABASE,
        "TRACING": "false",
        "POWERTOOLS_SERVICE_NAME": "fencepost",
        "POWERTOOLS_METRICS_NAMESPACE": "Fencepost",
        "POWERTOOLS_LOG_LEVEL": "INFO",
    }


def test_its_queue_parks_a_message_after_its_receives_and_an_alarm_says_so(default: Synth) -> None:
    queue = default.props("tables_queue")
    assert queue["RedrivePolicy"] == {
        "deadLetterTargetArn": default.arn("tables_dead_letters"),
        "maxReceiveCount": MAX_RECEIVES,
    }
    assert queue["VisibilityTimeout"] == 6 * 900
    mappings = [
        m["Properties"]
        for m in default.of_type("AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["EventSourceArn"] == default.arn("tables_queue")
    ]
    assert [(m["BatchSize"], m["FunctionResponseTypes"]) for m in mappings] == [(1, ["ReportBatchItemFailures"])]
    alarmed = [
        alarm["Properties"]
        for alarm in default.of_type("AWS::CloudWatch::Alarm").values()
        if {"Name": "QueueName", "Value": {"Fn::GetAtt": [default.ids["tables_dead_letters"], "QueueName"]}}
        in alarm["Properties"].get("Dimensions", [])
    ]
    assert len(alarmed) == 1


def test_the_glue_database_is_made_with_the_stack(default: Synth) -> None:
    props = default.props("glue_database")
    assert props["DatabaseInput"]["Name"] == DATABASE
    assert props["CatalogId"] == {"Ref": "AWS::AccountId"}


def _glue(suffix: str) -> dict[str, object]:
    parts = ["arn:", {"Ref": "AWS::Partition"}, ":glue:", {"Ref": "AWS::Region"}, ":", {"Ref": "AWS::AccountId"}]
    return {"Fn::Join": ["", [*parts, suffix]]}


def test_the_tables_role_holds_exactly_the_calls_the_function_makes(default: Synth) -> None:
    glue = ("glue:GetTable", "glue:CreateTable", "glue:UpdateTable", "glue:DeleteTable")
    assert granted(default, "tables_role") == (
        on(default.arn("tables_logs"), "logs:CreateLogStream", "logs:PutLogEvents")
        | on(default.arn("table"), "dynamodb:GetItem", "dynamodb:Query")
        | on(default.arn("bucket"), "s3:ListBucket")  # a missing object is a 404, not a 403
        | on(arn_join(default, "bucket", "/_kept/*.table.gz"), "s3:GetObject")  # each version's table file
        | on(arn_join(default, "bucket", "/_tables/*"), "s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload")
        | on(
            arn_join(default, "bucket", "/_exports/*.parquet.building"),
            "s3:GetObject",
            "s3:PutObject",
            "s3:DeleteObject",
        )
        | on(arn_join(default, "bucket", "/_tables/*/_history/history.parquet"), "s3:DeleteObject")  # retired
        | on(default.arn("tables_queue"), "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes")
        | on(_glue(":catalog"), *glue)
        | on(_glue(f":database/{DATABASE}"), *glue)
        | on(_glue(f":table/{DATABASE}/*"), *glue)
    )


def test_each_stack_has_its_own_glue_database_named_after_it() -> None:
    assert database_name("Fencepost") == DATABASE == "fencepost"  # the default stack's
    assert database_name("Fencepost-Staging") == "fencepost_staging"  # another, in the same account, apart
