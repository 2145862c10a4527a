"""Context parsing: defaults, accepted spellings and the refusals, without synthesizing anything."""

from __future__ import annotations

from typing import Any

import pytest

from infra.application import REPO_ROOT
from infra.context import SettingsError
from infra.settings import Auth, DeploySettings
from infra.table_capacity import Capacity, TableCapacity


def _settings(**context: Any) -> DeploySettings:
    return DeploySettings.from_context(context.get)


def test_defaults_are_the_production_shape() -> None:
    settings = _settings()

    assert settings == DeploySettings()
    assert settings.capacity == TableCapacity(mode=Capacity.ON_DEMAND)
    assert settings.destroy_on_delete is False
    assert settings.auth is Auth.NONE
    assert settings.tracing is False
    assert settings.cors_origins == ("*",)
    assert (settings.rate_limit, settings.burst_limit) == (1000, 2000)
    assert settings.loader_concurrency == 10
    assert settings.control_concurrency == 2


def test_values_may_come_typed_from_cdk_json_or_as_text_from_the_command_line() -> None:
    typed = _settings(capacity="prewarm", prewarmWriteUnits=20_000, tracing=True, removal="destroy")
    text = _settings(capacity="PREWARM", prewarmWriteUnits="20_000", tracing="on", removal="Destroy")

    assert typed == text
    assert text.capacity.prewarm_write_units == 20_000
    assert text.tracing is True
    assert text.destroy_on_delete is True


def test_trusted_proxies_reach_the_lookup_functions_environment_as_given() -> None:
    environment = _settings(trustedProxies="cloudfront=130.176.0.0/16").lookup_environment()

    assert environment["TRUSTED_PROXIES"] == "cloudfront=130.176.0.0/16"
    assert _settings().lookup_environment()["TRUSTED_PROXIES"] == "none"


def test_cors_origins_are_a_comma_separated_list() -> None:
    assert _settings(corsOrigins=" https://a.example ,https://b.example,").cors_origins == (
        "https://a.example",
        "https://b.example",
    )


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"capacity": "burst"}, "capacity must be one of 'on-demand', 'prewarm', 'warm'"),
        ({"auth": "cognito"}, "auth must be one of 'none', 'iam'"),
        ({"removal": "snapshot"}, "removal must be 'retain'"),
        ({"tracing": "maybe"}, "tracing must be on or off"),
        ({"rateLimit": "fast"}, "rateLimit must be a whole number"),
        ({"burstLimit": "0"}, "burstLimit must be at least 1"),
        ({"loaderConcurrency": "1"}, "loaderConcurrency must be between 2 and 1000"),
        ({"controlConcurrency": "1"}, "controlConcurrency must be between 2 and 1000"),
        ({"controlConcurrency": "1001"}, "controlConcurrency must be between 2 and 1000"),
        ({"maxReadUnits": "-5"}, "maxReadUnits must be at least 1"),
        ({"writeRate": True}, "writeRate must be a number"),
        ({"corsOrigins": " , "}, "corsOrigins must name at least one origin"),
        ({"trustedProxies": "all"}, "trustedProxies: 'all' is not one of: none, hops=N"),
        ({"trustedProxies": "networks=10.0.0.0/33"}, "trustedProxies: '10.0.0.0/33' is not a comma-separated list"),
        ({"logLevel": "chatty"}, "logLevel must be DEBUG, INFO"),
        ({"alarmEmail": "ops"}, "alarmEmail must be an email address"),
        ({"capacity": "prewarm", "maxWriteUnits": "100"}, "cannot have them"),
        ({"capacity": "warm", "warmReadUnits": "5000"}, "warm throughput can never be lowered|can never be lowered"),
        ({"capacity": "warm", "warmWriteUnits": "1000"}, "below the 4,000 write units/s"),
        ({"capacity": "warm", "maxWriteUnits": "5000"}, "below the warm throughput 10000"),
    ],
)
def test_bad_values_are_refused_with_the_key_and_what_it_accepts(context: dict[str, Any], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        _settings(**context)


@pytest.mark.parametrize(
    ("context", "given"),
    [
        ({"warmWriteUnits": "20000"}, "warmWriteUnits"),  # the default mode: on-demand
        ({"capacity": "on-demand", "warmReadUnits": "10"}, "warmReadUnits"),
        ({"capacity": "prewarm", "warmReadUnits": "30000", "warmWriteUnits": "20000"}, "warmReadUnits and warm"),
    ],
)
def test_warm_throughput_is_refused_unless_the_deploy_is_a_warm_one(context: dict[str, Any], given: str) -> None:
    # Given warm throughput values in a deploy that would not use them (such as the switch back from a prewarm)
    # When the settings are read / Then the synth stops, saying why and how to do it
    with pytest.raises(SettingsError) as refused:
        _settings(**context)
    message = str(refused.value)
    assert message.startswith(given)
    assert "only -c capacity=warm deploys" in message
    assert "describe-table --query Table.WarmThroughput" in message
    assert "a deploy that changes nothing else" in message


@pytest.mark.parametrize("mode", ["on-demand", "warm"])
def test_prewarm_capacity_is_refused_unless_the_deploy_is_a_prewarm(mode: str) -> None:
    with pytest.raises(SettingsError, match="prewarmWriteUnits size the PROVISIONED table of -c capacity=prewarm"):
        _settings(capacity=mode, prewarmWriteUnits="20000")


def test_an_empty_capacity_value_counts_as_not_given() -> None:
    # (a CDK_ARGS template with an empty value, e.g. -c warmWriteUnits=)
    settings = _settings(capacity="on-demand", warmWriteUnits="", prewarmReadUnits=" ")

    assert settings.capacity.mode is Capacity.ON_DEMAND


def test_every_context_key_the_stack_reads_is_in_the_deploy_guides_table() -> None:
    read: list[str] = []
    DeploySettings.from_context(read.append)
    table = (REPO_ROOT / "docs" / "deploy.md").read_text()

    assert {"front", "lookupConcurrency", "snapStart", "systemLogLevel"} <= set(read)
    assert sorted({key for key in read if f"`{key}`" not in table}) == []
