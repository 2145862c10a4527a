"""The live pointer's IAM: going live, rolling back and retiring are TransactWriteItems of the dataset record, the
live pointer and the build record, which IAM authorizes per write (there is no TransactWriteItems action); the
lookup function reads the pointer with GetItem and nothing more."""

from __future__ import annotations

import json
from typing import Any

from tests.support.synthesis import Synthesize
from tests.synth import Synth

# Each write of the transactions in fencepost.aws.dynamo.serving: Update (the record; the build record, marked as
# switched) and Put (the live pointer, or its "nothing served" form on retirement).
TRANSACTION_ACTIONS = {"dynamodb:UpdateItem", "dynamodb:PutItem"}


def _table_actions(synth: Synth, role: str) -> set[str]:
    """The DynamoDB actions the role is allowed on the table (however CDK merged the statements)."""
    table = json.dumps(synth.arn("table"), sort_keys=True)
    allowed: set[str] = set()
    for policy in synth.of_type("AWS::IAM::Policy").values():
        props = policy["Properties"]
        if synth.ref(role) not in props["Roles"]:
            continue
        for statement in props["PolicyDocument"]["Statement"]:
            actions: Any = statement["Action"]
            resources: Any = statement["Resource"]
            actions = actions if isinstance(actions, list) else [actions]
            resources = resources if isinstance(resources, list) else [resources]
            if statement["Effect"] == "Allow" and table in {json.dumps(r, sort_keys=True) for r in resources}:
                allowed |= {action for action in actions if action.startswith("dynamodb:")}
    return allowed


def test_the_loader_may_write_what_its_transactions_hold(synthesize: Synthesize) -> None:
    assert _table_actions(synthesize(), "loader_role") >= TRANSACTION_ACTIONS


def test_the_lookup_reads_the_pointer_with_get_item_and_queries_nothing_else(synthesize: Synthesize) -> None:
    assert _table_actions(synthesize(), "lookup_role") == {"dynamodb:GetItem", "dynamodb:Query"}
