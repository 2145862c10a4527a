"""Logs: never a secret, and looked-up addresses (personal data) only when LOG_ADDRESSES allows it."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction, lookup_function
from tests.support import LambdaContext, event

SECRET = "wJalrXUtnFEMI-test-secret-7f3a9c"
ADDRESSES = ["203.0.113.77", "2001:db9::77:1234", "9.9.9.9"]


def _logged(module: LookupFunction) -> str:
    """What the function logs for two addresses no range contains and one invalid address."""
    stream = io.StringIO()
    module.obs.logger.registered_handler.setStream(stream)  # type: ignore[attr-defined]
    module.obs.logger.setLevel("INFO")  # the level Lambda runs at; an earlier test may have left another
    for ip in ADDRESSES[:2]:
        ev = event("lookup-get")
        ev["queryStringParameters"] = {"ip": ip, "dataset": "geo"}
        assert module.handler(ev, LambdaContext())["statusCode"] == 404
    bad = event("lookup-get-invalid-ip")
    bad["queryStringParameters"] = {"ip": f"{ADDRESSES[2]}/24", "dataset": "geo"}
    assert module.handler(bad, LambdaContext())["statusCode"] == 400
    return stream.getvalue()


@pytest.fixture
def reload_with(
    lookup_handler: LookupFunction,  # noqa: ARG001 - the table and the datasets it sets up
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[dict[str, str]], LookupFunction]:
    def reload(env: dict[str, str]) -> LookupFunction:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return lookup_function()

    return reload


def test_refused_requests_are_logged_with_their_address_when_asked(
    reload_with: Callable[[dict[str, str]], LookupFunction],
) -> None:
    logs = _logged(reload_with({"LOG_ADDRESSES": "true", "AWS_SECRET_ACCESS_KEY": SECRET}))
    assert "request refused" in logs
    assert all(ip in logs for ip in ADDRESSES)
    assert SECRET not in logs


def test_by_default_addresses_stay_out_of_the_logs(
    reload_with: Callable[[dict[str, str]], LookupFunction], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOG_ADDRESSES", raising=False)
    logs = _logged(reload_with({"AWS_SECRET_ACCESS_KEY": SECRET}))
    assert "request refused" in logs  # still logged, with code and status
    assert "NOT_FOUND" in logs
    assert not any(ip in logs for ip in ADDRESSES)
    assert SECRET not in logs


@pytest.mark.parametrize("log_addresses", ["true", "false"])
def test_with_tracing_on_addresses_reach_xray_only_when_they_may_be_logged(
    reload_with: Callable[[dict[str, str]], LookupFunction], monkeypatch: pytest.MonkeyPatch, log_addresses: str
) -> None:
    from aws_lambda_powertools.tracing.tracer import Tracer

    # Given the lookup function traced, with what Powertools would attach to its X-Ray segment recorded
    sent: list[str] = []

    def record(_tracer: Tracer, _method: str | None = None, data: object = None, **kwargs: object) -> None:
        if kwargs.get("capture_response") and data is not None:
            sent.append(repr(data))

    monkeypatch.setattr(Tracer, "_add_response_as_metadata", record)
    module = reload_with({"TRACING": "true", "LOG_ADDRESSES": log_addresses})
    # When addresses are looked up
    _logged(module)
    # Then the responses (which name the addresses) are attached only when addresses may be logged
    leaked = [ip for ip in ADDRESSES[:2] if any(ip in data for data in sent)]
    assert leaked == (ADDRESSES[:2] if log_addresses == "true" else [])
