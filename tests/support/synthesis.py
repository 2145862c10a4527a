"""The synthesized template, for the infra tests: the ``synthesize`` fixture's type (``tests/infra/conftest.py``),
every context option at once, and what the template says of a function (its environment) and of a role (every
action and resource its policies allow, as ``on`` writes them)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.synth import Synth

Synthesize = Callable[..., Synth]


# Every context option the stack reads, set at once: the stack's tests read the default template and this one.
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
    "logAddresses": "true",
    "logLevel": "debug",
}


def granted(synth: Synth, role: str) -> set[tuple[str, str]]:
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


def on(resource: Any, *actions: str) -> set[tuple[str, str]]:
    return {(action, json.dumps(resource, sort_keys=True)) for action in actions}


def default_bus() -> dict[str, Any]:
    """The account's default EventBridge bus, as the template names it."""
    parts = ["arn:", {"Ref": "AWS::Partition"}, ":events:", {"Ref": "AWS::Region"}, ":", {"Ref": "AWS::AccountId"}]
    return {"Fn::Join": ["", [*parts, ":event-bus/default"]]}


def arn_join(synth: Synth, name: str, suffix: str) -> dict[str, Any]:
    return {"Fn::Join": ["", [synth.arn(name), suffix]]}


QUEUES = ("control_queue", "data_queue")
DEAD_LETTERS = ("control_dead_letters", "data_dead_letters")


def environment(synth: Synth, function: str) -> dict[str, Any]:
    env: dict[str, Any] = synth.props(function)["Environment"]["Variables"]
    return env
