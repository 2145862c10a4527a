"""Change events in the synthesized template: the loader and the fetch function may put events on the default bus
and nothing else of EventBridge, no other role may, events off takes both statements away; and the example rule
(``-c refusedEmail=...``): refused builds of this stack's source, e-mailed through a topic only that rule may
publish to; cdk-nag clean."""

from __future__ import annotations

import json
from typing import Any

from fencepost.core.events.kinds import BUILD_REFUSED
from tests.support.synthesis import default_bus, environment
from tests.synth import Synth


def _events_statements(synth: Synth) -> dict[str, list[dict[str, Any]]]:
    """Every statement that names an EventBridge action, by the roles of its policy."""
    found: dict[str, list[dict[str, Any]]] = {}
    for policy in synth.of_type("AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if any(action.startswith("events:") for action in actions):
                for role in policy["Properties"]["Roles"]:
                    found.setdefault(role["Ref"], []).append(statement)
    return found


def test_the_loader_and_the_fetch_function_alone_may_put_events_on_the_default_bus(default: Synth) -> None:
    statement = {"Action": "events:PutEvents", "Effect": "Allow", "Resource": default_bus()}
    assert _events_statements(default) == {
        default.ids["loader_role"]: [statement],
        default.ids["fetch_role"]: [statement],
    }
    for function in ("loader_function", "fetch_function"):
        env = environment(default, function)
        assert (env["CHANGE_EVENTS"], env["EVENTS_SOURCE"], env["EVENTS_SECONDS"]) == ("true", "fencepost", "2")
    assert "CHANGE_EVENTS" not in environment(default, "lookup_function")
    assert default.of_type("AWS::Events::Rule").keys() == {default.ids["sweep"]}  # no example rule


def test_events_off_takes_the_permission_away(synthesize: Any) -> None:
    synth = synthesize(changeEvents="false")
    assert _events_statements(synth) == {}
    assert environment(synth, "loader_function")["CHANGE_EVENTS"] == "false"
    assert environment(synth, "fetch_function")["CHANGE_EVENTS"] == "false"


def test_the_example_rule_emails_refused_builds_of_this_stacks_source(synthesize: Any) -> None:
    synth = synthesize(refusedEmail="ops@example.com", eventsSource="fencepost-eu")
    (rule_id,) = [key for key in synth.of_type("AWS::Events::Rule") if key != synth.ids["sweep"]]
    rule = synth.resources[rule_id]["Properties"]
    assert rule["EventPattern"] == {"source": ["fencepost-eu"], "detail-type": [BUILD_REFUSED.detail_type]}
    (topic,) = synth.of_type("AWS::SNS::Topic")
    assert rule["Targets"] == [{"Arn": {"Ref": topic}, "Id": "RefusedTopic"}]
    subscription = synth.only("AWS::SNS::Subscription")
    assert (subscription["Protocol"], subscription["Endpoint"]) == ("email", "ops@example.com")
    policy = synth.only("AWS::SNS::TopicPolicy")["PolicyDocument"]["Statement"]
    allows = [statement for statement in policy if statement["Effect"] == "Allow"]
    assert allows == [
        {
            "Action": "sns:Publish",
            "Condition": {"ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [rule_id, "Arn"]}}},
            "Effect": "Allow",
            "Principal": {"Service": "events.amazonaws.com"},
            "Resource": {"Ref": topic},
            "Sid": "RefusedRulePublish",
        }
    ]
    denies = [statement["Condition"] for statement in policy if statement["Effect"] == "Deny"]
    assert denies == [{"Bool": {"aws:SecureTransport": "false"}}]
    assert environment(synth, "loader_function")["EVENTS_SOURCE"] == "fencepost-eu"
    # cdk-nag: clean, nothing of the rule or its topic acknowledged
    assert synth.report is not None
    (report,) = (r for r in synth.report["pluginReports"] if r["pluginName"] == "AwsSolutions")
    assert (report["conclusion"], report["violations"]) == ("success", [])
    assert [f for f in report["suppressedViolations"] if "ChangeEvents" in json.dumps(f)] == []
