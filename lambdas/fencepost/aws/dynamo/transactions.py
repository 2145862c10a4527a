"""Transactions: several conditional writes to the table that succeed or fail together (TransactWriteItems).

A transaction is refused when the condition of one of its writes does not hold: ``Refused`` names that
condition (its rule), as ``ConditionFailed`` does for a single write. A write DynamoDB finds invalid (an item over
400 KB) is ``StoreRefused``, never retried. Any other cancellation (a concurrent transaction on the same item,
throttling) and any other failure is ``StoreUnavailable``: retry shortly.

IAM: each write needs the permission of its single-item operation (``dynamodb:UpdateItem``, ``PutItem``,
``DeleteItem``); TransactWriteItems has no permission of its own.
"""

from __future__ import annotations

import re
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws.dynamo.client import (
    REFUSALS,
    Condition,
    ConditionFailed,
    Table,
    error_code,
    expression_names,
    refused,
)
from fencepost.aws.dynamo.codec import Item, attribute
from fencepost.errors import StoreRefused, StoreUnavailable

CONDITION_FAILED = "ConditionalCheckFailed"
INVALID = "ValidationError"  # a write DynamoDB refuses whatever the state (an item too large)


class Refused(ConditionFailed):
    """A transaction was cancelled because ``condition`` (the first that failed, in write order) does not hold."""

    def __init__(self, condition: Condition) -> None:
        super().__init__(condition.rule)
        self.condition = condition


class Transaction:
    """Writes collected in order, then committed at once; no two may touch the same item."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.writes: list[dict[str, Any]] = []
        self.conditions: list[Condition | None] = []

    def _add(
        self,
        kind: str,
        request: dict[str, Any],
        condition: Condition | None,
        values: dict[str, Any] | None,
        *expressions: str,
    ) -> Transaction:
        request = {"TableName": self.table.name, **request}
        if condition is not None:
            request["ConditionExpression"] = condition.expression
        names = expression_names(*expressions, condition.expression if condition else "")
        if names:
            request["ExpressionAttributeNames"] = names
        if values:
            request["ExpressionAttributeValues"] = {name: attribute(value) for name, value in values.items()}
        self.writes.append({kind: request})
        self.conditions.append(condition)
        return self

    def update(
        self, key: Item, expression: str, values: dict[str, Any] | None = None, *, condition: Condition | None = None
    ) -> Transaction:
        """An UpdateItem; names are written ``#x`` for attribute ``x``, values are plain Python."""
        return self._add("Update", {"Key": key, "UpdateExpression": expression}, condition, values, expression)

    def put(
        self, item: Item, *, condition: Condition | None = None, values: dict[str, Any] | None = None
    ) -> Transaction:
        return self._add("Put", {"Item": item}, condition, values)

    def delete(
        self, key: Item, *, condition: Condition | None = None, values: dict[str, Any] | None = None
    ) -> Transaction:
        return self._add("Delete", {"Key": key}, condition, values)

    def commit(self) -> None:
        """Apply every write, or none; raises ``Refused``, ``StoreRefused`` or ``StoreUnavailable``."""
        try:
            self.table.client.transact_write_items(TransactItems=self.writes)  # type: ignore[arg-type]
        except ClientError as error:
            raise self._failure(error) from error
        except BotoCoreError as error:
            raise StoreUnavailable(
                f"DynamoDB TransactWriteItems failed ({type(error).__name__}); retry shortly"
            ) from error

    def _failure(self, error: ClientError) -> Exception:
        code = error_code(error)
        if code in REFUSALS:
            return refused("TransactWriteItems", error)
        if code != "TransactionCanceledException":
            return StoreUnavailable(f"DynamoDB TransactWriteItems failed ({code}); retry shortly")
        reasons = cancellation_reasons(error)
        for condition, reason in zip(self.conditions, reasons, strict=False):
            if reason == CONDITION_FAILED and condition is not None:
                return Refused(condition)
        shown = ", ".join(reasons) or "no reason given"
        if INVALID in reasons:
            return StoreRefused(f"DynamoDB refused a transaction as invalid ({shown})")
        return StoreUnavailable(f"a DynamoDB transaction was cancelled ({shown}); retry shortly")


def cancellation_reasons(error: ClientError) -> list[str]:
    """The code of each write's cancellation reason, in write order (``None`` for a write that was not the cause).

    botocore puts them in the response's ``CancellationReasons``; the message lists them too
    ("... reasons [ConditionalCheckFailed, None]"), which is read when the field is missing.
    """
    reasons = error.response.get("CancellationReasons")
    if isinstance(reasons, list):
        return [str(reason.get("Code", "None")) for reason in reasons]
    message = str(error.response.get("Error", {}).get("Message", ""))
    found = re.search(r"\[([^\]]*)\]\s*$", message)
    return [part.strip() for part in found.group(1).split(",")] if found else []
