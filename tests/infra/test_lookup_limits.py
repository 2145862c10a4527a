"""The lookup function's limits reach it from CDK context, and with ``-c auth=iam`` browsers' CORS preflights reach
it without a signature (and nothing else does)."""

from __future__ import annotations

from typing import Any

import pytest

from fencepost.declared import SettingsError as LookupSettingsError
from fencepost.http import cors
from fencepost.http.budget import DEFAULT_BUDGET_BYTES
from fencepost.settings import CacheLimits, LookupSettings
from infra.context import SettingsError
from infra.settings import DeploySettings
from tests.support.synthesis import Synthesize
from tests.synth import Synth

LIMITS = {
    "liveCacheEntries": "2048",
    "negativeCacheTtl": "2",
    "versionCacheEntries": "256",
    "versionCacheBytes": "33554432",
    "rangeCacheBytes": "0",
    "responseBudgetBytes": "3000000",
}


def _environment(synth: Synth) -> dict[str, Any]:
    variables: dict[str, Any] = synth.props("lookup_function")["Environment"]["Variables"]
    return variables


def _routes(synth: Synth) -> dict[str, dict[str, Any]]:
    return {
        props["RouteKey"]: props
        for props in (r["Properties"] for r in synth.of_type("AWS::ApiGatewayV2::Route").values())
    }


def test_the_lookup_limits_reach_the_function_with_their_defaults(synthesize: Synthesize) -> None:
    environment = _environment(synthesize())

    assert environment["LIVE_CACHE_ENTRIES"] == str(CacheLimits().live_entries) == "1024"
    assert environment["NEGATIVE_CACHE_TTL_SECONDS"] == "5"
    assert environment["VERSION_CACHE_ENTRIES"] == "128"
    assert environment["VERSION_CACHE_BYTES"] == str(64 * 1024 * 1024)
    assert environment["RANGE_CACHE_BYTES"] == str(128 * 1024 * 1024)
    assert environment["RESPONSE_BUDGET_BYTES"] == str(DEFAULT_BUDGET_BYTES) == "4500000"
    assert environment["CORS_ORIGINS"] == "*"


def test_the_lookup_limits_are_set_from_context_and_read_back_by_the_function(synthesize: Synthesize) -> None:
    environment = _environment(synthesize(corsOrigins="https://a.example, https://b.example", **LIMITS))

    names = ("LIVE_CACHE_ENTRIES", "NEGATIVE_CACHE_TTL_SECONDS", "VERSION_CACHE_ENTRIES", "VERSION_CACHE_BYTES")
    assert [environment[name] for name in names] == ["2048", "2", "256", "33554432"]
    assert environment["RESPONSE_BUDGET_BYTES"] == "3000000"
    # And the function reads them as set (environment values that are not strings are the table's name)
    settings = LookupSettings.from_env(
        {k: v for k, v in environment.items() if isinstance(v, str)} | {"TABLE_NAME": "t"}
    )
    assert (settings.caches.live_entries, settings.caches.negative_ttl) == (2048, 2.0)
    assert (settings.caches.version_entries, settings.caches.version_bytes) == (256, 33_554_432)
    assert settings.caches.range_bytes == 0 == int(environment["RANGE_CACHE_BYTES"])
    assert settings.response_budget == 3_000_000
    assert settings.cors_origins == ("https://a.example", "https://b.example")


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"liveCacheEntries": "0"}, "liveCacheEntries must be between 1 and 1000000"),
        ({"versionCacheBytes": "1000"}, "versionCacheBytes must be between 1048576 and"),
        ({"rangeCacheBytes": "-1"}, "rangeCacheBytes must be between 0 and"),
        ({"responseBudgetBytes": "7000000"}, "responseBudgetBytes must be between 1000000 and 6000000"),
        ({"negativeCacheTtl": "soon"}, "negativeCacheTtl must be a number"),
    ],
)
def test_lookup_limits_out_of_range_stop_the_synth(context: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        DeploySettings.from_context(context.get)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("LIVE_CACHE_ENTRIES", "0", "LIVE_CACHE_ENTRIES must be between 1 and 1000000"),
        ("NEGATIVE_CACHE_TTL_SECONDS", "-1", "NEGATIVE_CACHE_TTL_SECONDS must be between 0.0 and 3600.0"),
        ("VERSION_CACHE_ENTRIES", "many", "VERSION_CACHE_ENTRIES must be a whole number"),
        ("VERSION_CACHE_BYTES", "1000", "VERSION_CACHE_BYTES must be between 1048576 and"),
        ("RANGE_CACHE_BYTES", "-5", "RANGE_CACHE_BYTES must be between 0 and"),
        ("RESPONSE_BUDGET_BYTES", "6291556", "RESPONSE_BUDGET_BYTES must be between 1000000 and 6000000"),
    ],
)
def test_the_function_refuses_lookup_limits_out_of_range(name: str, value: str, message: str) -> None:
    with pytest.raises(LookupSettingsError, match=message):
        LookupSettings.from_env({"TABLE_NAME": "t", name: value})


def test_the_function_defaults_are_the_deploy_defaults() -> None:
    settings = LookupSettings.from_env({"TABLE_NAME": "t"})
    deployed = DeploySettings()
    assert (settings.caches, settings.response_budget, settings.cors_origins) == (
        deployed.lookup_caches,
        deployed.response_budget,
        deployed.cors_origins,
    )


def test_with_iam_auth_an_unauthenticated_options_route_brings_preflights_to_the_function(
    synthesize: Synthesize,
) -> None:
    # Given -c auth=iam / When synthesized
    routes = _routes(synthesize(auth="iam"))

    # Then every request needs a signature, except OPTIONS on any path and the console's static files (GET only),
    # which go to the same integration
    unsigned = ("OPTIONS /{proxy+}", "GET /console", "GET /console/{asset}")
    assert set(routes) == {"$default", *unsigned}
    assert routes["$default"]["AuthorizationType"] == "AWS_IAM"
    for key in unsigned:
        assert routes[key]["AuthorizationType"] == "NONE"
        assert routes[key]["Target"] == routes["$default"]["Target"]


def test_without_auth_the_default_route_takes_everything(synthesize: Synthesize) -> None:
    routes = _routes(synthesize())

    assert set(routes) == {"$default"}
    assert routes["$default"]["AuthorizationType"] == "NONE"


def test_the_api_and_the_function_share_one_cors_policy(synthesize: Synthesize) -> None:
    synth = synthesize(auth="iam", corsOrigins="https://app.example.com")
    configured = synth.props("api")["CorsConfiguration"]

    assert configured["AllowHeaders"] == list(cors.ALLOW_HEADERS)
    assert configured["ExposeHeaders"] == list(cors.EXPOSE_HEADERS)
    assert configured["MaxAge"] == cors.MAX_AGE_SECONDS
    assert configured["AllowOrigins"] == ["https://app.example.com"]
    assert _environment(synth)["CORS_ORIGINS"] == "https://app.example.com"
