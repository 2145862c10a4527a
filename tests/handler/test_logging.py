"""Logs: never a secret, and looked-up addresses (personal data) only when LOG_ADDRESSES allows it."""

from __future__ import annotations

import importlib
import io
import sys
from collections.abc import Callable
from types import ModuleType

import pytest

from tests.support import LambdaContext, event

SECRET = "wJalrXUtnFEMI-test-secret-7f3a9c"
ADDRESSES = ["203.0.113.77", "2001:db9::77:1234", "9.9.9.9"]


def _logged(module: ModuleType) -> str:
    """What the function logs for two addresses no range contains and one invalid address."""
    stream = io.StringIO()
    module.obs.logger.registered_handler.setStream(stream)
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
    lookup_handler: ModuleType,  # noqa: ARG001 - the table and the datasets it sets up
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[dict[str, str]], ModuleType]:
    def reload(env: dict[str, str]) -> ModuleType:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        sys.modules.pop("fencepost.handlers.lookup", None)
        return importlib.import_module("fencepost.handlers.lookup")

    return reload


def test_refused_requests_are_logged_with_their_address_by_default(
    reload_with: Callable[[dict[str, str]], ModuleType],
) -> None:
    logs = _logged(reload_with({"AWS_SECRET_ACCESS_KEY": SECRET}))
    assert "request refused" in logs
    assert all(ip in logs for ip in ADDRESSES)
    assert SECRET not in logs


def test_log_addresses_false_keeps_addresses_out_of_the_logs(
    reload_with: Callable[[dict[str, str]], ModuleType],
) -> None:
    logs = _logged(reload_with({"LOG_ADDRESSES": "false", "AWS_SECRET_ACCESS_KEY": SECRET}))
    assert "request refused" in logs  # still logged, with code and status
    assert "NOT_FOUND" in logs
    assert not any(ip in logs for ip in ADDRESSES)
    assert SECRET not in logs
