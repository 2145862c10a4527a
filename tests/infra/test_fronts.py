"""The two fronts of the lookup function (``-c front=``), its reserved concurrency, SnapStart and its logging.

Read from synthesized templates: what each front creates, how it is throttled and alarmed, and what it calls.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.context import SettingsError
from infra.settings import DeploySettings
from tests.support.synthesis import Synthesize
from tests.synth import Synth

URL = {"front": "function-url"}


@pytest.fixture(scope="module")
def default(synthesize: Synthesize) -> Synth:
    return synthesize()


@pytest.fixture(scope="module")
def url(synthesize: Synthesize) -> Synth:
    return synthesize(**URL)


def _alarm_metrics(synth: Synth) -> set[tuple[str, str]]:
    return {
        (props["Namespace"], props["MetricName"])
        for props in (alarm["Properties"] for alarm in synth.of_type("AWS::CloudWatch::Alarm").values())
    }


def _public_permissions(synth: Synth) -> list[dict[str, Any]]:
    permissions = synth.of_type("AWS::Lambda::Permission").values()
    return [p["Properties"] for p in permissions if p["Properties"]["Principal"] == "*"]


# --- the HTTP API, the default -----------------------------------------------------------------------------------


def test_the_default_front_is_the_http_api_with_nothing_reserved(default: Synth) -> None:
    assert len(default.of_type("AWS::ApiGatewayV2::Api")) == 1
    assert default.of_type("AWS::Lambda::Url") == {}
    assert "ReservedConcurrentExecutions" not in default.props("lookup_function")
    assert ("AWS/ApiGateway", "5xx") in _alarm_metrics(default)


def test_the_http_api_front_may_reserve_concurrency_too(synthesize: Synthesize) -> None:
    synth = synthesize(lookupConcurrency="30")

    assert synth.props("lookup_function")["ReservedConcurrentExecutions"] == 30
    assert len(synth.of_type("AWS::ApiGatewayV2::Api")) == 1


# --- the function URL --------------------------------------------------------------------------------------------


def test_function_url_front_is_a_public_url_on_the_lookup_function_and_nothing_of_api_gateway(url: Synth) -> None:
    props = url.only("AWS::Lambda::Url")

    assert props["TargetFunctionArn"] == url.arn("lookup_function")
    assert props["AuthType"] == "NONE"
    assert props["InvokeMode"] == "BUFFERED"
    assert not [kind for kind in {r["Type"] for r in url.resources.values()} if kind.startswith("AWS::ApiGateway")]
    # Public: Lambda requires both permissions for an unsigned function URL call.
    actions = {p["Action"]: p for p in _public_permissions(url)}
    assert set(actions) == {"lambda:InvokeFunctionUrl", "lambda:InvokeFunction"}
    assert actions["lambda:InvokeFunctionUrl"]["FunctionUrlAuthType"] == "NONE"
    assert actions["lambda:InvokeFunction"]["InvokedViaFunctionUrl"] is True
    for permission in actions.values():
        assert permission["FunctionName"] == url.arn("lookup_function")


def test_function_url_has_the_apis_cors_policy_without_options(url: Synth) -> None:
    cors = url.only("AWS::Lambda::Url")["Cors"]

    assert cors["AllowOrigins"] == ["*"]
    assert cors["AllowMethods"] == ["GET", "POST"]  # Lambda answers preflights itself; OPTIONS is not a value here
    assert "content-type" in cors["AllowHeaders"]
    assert "authorization" in cors["AllowHeaders"]
    assert cors["ExposeHeaders"] == ["retry-after", "allow"]
    assert cors["MaxAge"] == 86_400


def _warnings(synth: Synth) -> list[str]:
    """The synth's warnings (``cdk synth`` prints them), as its validation report lists the construct annotations."""
    assert synth.report is not None
    return [
        violation["description"]
        for plugin in synth.report["pluginReports"]
        if plugin["pluginName"] == "Construct Annotations"
        for violation in plugin["violations"]
    ]


def test_function_url_reserves_nothing_by_default_so_a_new_account_can_deploy_it(
    url: Synth, synthesize: Synthesize
) -> None:
    # A new account's concurrency limit may be 10, and Lambda keeps 100 unreserved: any default reservation fails
    assert "ReservedConcurrentExecutions" not in url.props("lookup_function")
    assert not any("lookupConcurrency" in warning for warning in _warnings(url))
    # A reservation is a cap the user asks for, and the synth says what it needs of the account
    capped = synthesize(**URL, lookupConcurrency="200")
    assert capped.props("lookup_function")["ReservedConcurrentExecutions"] == 200
    [warning] = [w for w in _warnings(capped) if "lookupConcurrency" in w]
    assert "the account's concurrency limit must be at least 300 (Lambda keeps 100 unreserved)" in warning
    assert "aws lambda get-account-settings --query AccountLimit.ConcurrentExecutions" in warning
    assert "ReservedConcurrentExecutions" not in synthesize(**URL, lookupConcurrency="off").props("lookup_function")


def test_function_url_alarms_watch_the_functions_own_metrics(url: Synth) -> None:
    alarms = {
        props["MetricName"]: props
        for props in (alarm["Properties"] for alarm in url.of_type("AWS::CloudWatch::Alarm").values())
    }

    assert "5xx" not in alarms
    five = alarms["Url5xxCount"]
    assert five["Namespace"] == "AWS/Lambda"
    assert five["Dimensions"] == [{"Name": "FunctionName", "Value": url.ref("lookup_function")}]
    assert (five["Statistic"], five["Threshold"], five["EvaluationPeriods"]) == ("Sum", 1, 1)
    throttles = alarms["Throttles"]
    assert throttles["Dimensions"] == [{"Name": "FunctionName", "Value": url.ref("lookup_function")}]
    assert (throttles["DatapointsToAlarm"], throttles["EvaluationPeriods"]) == (2, 3)
    assert "lookupConcurrency" in throttles["AlarmDescription"]
    errors = [
        alarm["Properties"]["Dimensions"]
        for alarm in url.of_type("AWS::CloudWatch::Alarm").values()
        if alarm["Properties"]["MetricName"] == "Errors"
    ]
    assert [{"Name": "FunctionName", "Value": url.ref("lookup_function")}] in errors


def test_function_url_is_the_api_url_output(url: Synth) -> None:
    value = url.template["Outputs"]["ApiUrl"]["Value"]

    assert value == {"Fn::GetAtt": [url.ids["function_url"], "FunctionUrl"]}


def test_auth_iam_makes_the_url_signed_and_not_public(synthesize: Synthesize) -> None:
    synth = synthesize(**URL, auth="iam")

    assert synth.only("AWS::Lambda::Url")["AuthType"] == "AWS_IAM"
    assert _public_permissions(synth) == []


@pytest.mark.parametrize("key", ["rateLimit", "burstLimit"])
def test_stage_throttles_are_refused_with_the_function_url(key: str) -> None:
    with pytest.raises(SettingsError, match=f"{key}.*lookupConcurrency"):
        DeploySettings.from_context({**URL, key: "100"}.get)


@pytest.mark.parametrize("value", ["0", "-1", "10001", "many", "1.5"])
def test_lookup_concurrency_must_be_a_count_or_off(value: str) -> None:
    with pytest.raises(SettingsError, match="lookupConcurrency"):
        DeploySettings.from_context({**URL, "lookupConcurrency": value}.get)


def test_an_unknown_front_is_refused() -> None:
    with pytest.raises(SettingsError, match="front must be one of 'http-api', 'function-url'"):
        DeploySettings.from_context({"front": "alb"}.get)


# --- SnapStart ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("front", ["http-api", "function-url"])
def test_snap_start_publishes_a_version_and_the_front_calls_its_alias(synthesize: Synthesize, front: str) -> None:
    synth = synthesize(front=front, snapStart="on")
    (alias_id, alias) = next(iter(synth.of_type("AWS::Lambda::Alias").items()))

    assert synth.props("lookup_function")["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    assert alias["Properties"]["Name"] == "live"
    assert alias["Properties"]["FunctionName"] == synth.ref("lookup_function")
    assert len(synth.of_type("AWS::Lambda::Version")) == 1
    if front == "function-url":
        target = synth.only("AWS::Lambda::Url")
        assert target["TargetFunctionArn"] == synth.arn("lookup_function")
        assert target["Qualifier"] == "live"
    else:
        assert alias_id in json.dumps(synth.only("AWS::ApiGatewayV2::Integration")["IntegrationUri"])
    assert "SnapStart" not in synth.props("loader_function")


def test_snap_start_is_off_by_default(default: Synth, url: Synth) -> None:
    for synth in (default, url):
        assert "SnapStart" not in synth.props("lookup_function")
        assert synth.of_type("AWS::Lambda::Alias") == {}


# --- logging -----------------------------------------------------------------------------------------------------


def _logging(synth: Synth, function: str) -> dict[str, Any]:
    config: dict[str, Any] = synth.props(function)["LoggingConfig"]
    return config


def test_logs_are_json_without_lambdas_per_invocation_lines(default: Synth, url: Synth) -> None:
    for synth in (default, url):
        for function in ("lookup_function", "loader_function"):
            assert _logging(synth, function)["LogFormat"] == "JSON"
            assert _logging(synth, function)["SystemLogLevel"] == "WARN"
        assert _logging(synth, "lookup_function")["ApplicationLogLevel"] == "WARN"
        assert synth.props("lookup_function")["Environment"]["Variables"]["POWERTOOLS_LOG_LEVEL"] == "WARNING"


@pytest.mark.parametrize(
    ("level", "lambda_level"), [("debug", "DEBUG"), ("info", "INFO"), ("error", "ERROR"), ("critical", "FATAL")]
)
def test_log_level_sets_both_functions_and_lambdas_filter(
    synthesize: Synthesize, level: str, lambda_level: str
) -> None:
    synth = synthesize(logLevel=level, systemLogLevel="info")

    for function in ("lookup_function", "loader_function"):
        assert _logging(synth, function)["ApplicationLogLevel"] == lambda_level
        assert _logging(synth, function)["SystemLogLevel"] == "INFO"
        assert synth.props(function)["Environment"]["Variables"]["POWERTOOLS_LOG_LEVEL"] == level.upper()


@pytest.mark.parametrize(("key", "value"), [("logLevel", "verbose"), ("systemLogLevel", "error")])
def test_bad_log_levels_are_refused(key: str, value: str) -> None:
    with pytest.raises(SettingsError, match=key):
        DeploySettings.from_context({key: value}.get)
