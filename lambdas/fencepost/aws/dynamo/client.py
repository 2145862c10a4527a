"""The DynamoDB client of the data layer: how it is configured, how its errors are mapped, how it pages.

Every failure of DynamoDB surfaces as ``StoreUnavailable`` (worth retrying), except a request DynamoDB refuses as
invalid, ``StoreRefused`` (never retried); an item is sized before it is written, so one over 400 KB is refused
here, by name. A conditional check that fails is an answer, not a failure (``ConditionFailed``, turned into a
typed outcome or a named conflict by the caller).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws import USER_AGENT
from fencepost.aws.dynamo.codec import Item, attribute
from fencepost.core.storage.items import ItemTooLarge, check_item
from fencepost.errors import StoreRefused, StoreUnavailable

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


def make_client(
    *,
    pool: int = 32,
    retries: int = 2,
    read_timeout: float = 2,
    validate: bool = True,
) -> DynamoDBClient:
    """A client with short timeouts and few retries (the lookup's: a slow table is a fast 503).

    ``validate=False`` skips botocore's client-side parameter validation, about a quarter of the client's CPU
    per BatchWriteItem: for the loader, whose requests are all built here (DynamoDB still validates them).
    The endpoint comes from the environment (``AWS_ENDPOINT_URL_DYNAMODB``) when local.
    """
    config = Config(
        connect_timeout=1,
        read_timeout=read_timeout,
        retries={"max_attempts": retries, "mode": "standard"},
        max_pool_connections=pool,
        tcp_keepalive=True,
        parameter_validation=validate,
        user_agent=USER_AGENT,
    )
    return boto3.client("dynamodb", config=config)


def control_client() -> DynamoDBClient:
    """A client for reads and writes off the lookup's path (the fetch function, the admin commands, an enrichment
    job's reads): 10 s to answer, 3 tries."""
    return make_client(retries=3, read_timeout=10)


class ConditionFailed(Exception):
    """A conditional write was refused: the rule of its condition does not hold."""


@dataclass(frozen=True, slots=True)
class Condition:
    """A domain rule and the condition expression that enforces it (attribute names written ``#name``)."""

    rule: str
    expression: str


def error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", "error"))


# Answers that say the request itself is wrong: sending it again cannot help.
REFUSALS = frozenset({"ValidationException"})


def refused(operation: str, error: ClientError) -> StoreRefused:
    message = error.response.get("Error", {}).get("Message", "")
    return StoreRefused(f"DynamoDB refused {operation} as invalid ({error_code(error)}: {message})")


class Table:
    """One DynamoDB table, through one client: calls with mapped errors, paged queries, conditional updates."""

    def __init__(self, client: DynamoDBClient, name: str) -> None:
        self.client = client
        self.name = name

    def call(self, operation: str, **kwargs: Any) -> Any:
        try:
            return getattr(self.client, operation)(TableName=self.name, **kwargs)
        except ClientError as error:
            if error_code(error) == "ConditionalCheckFailedException":
                raise ConditionFailed from error
            if error_code(error) in REFUSALS:
                raise refused(operation, error) from error
            raise StoreUnavailable(f"DynamoDB {operation} failed ({error_code(error)}); retry shortly") from error
        except BotoCoreError as error:
            raise StoreUnavailable(f"DynamoDB {operation} failed ({type(error).__name__}); retry shortly") from error

    def get(self, key: Item, *, consistent: bool = False) -> Item | None:
        item: Item | None = self.call("get_item", Key=key, ConsistentRead=consistent).get("Item")
        return item

    def put(self, item: Item) -> None:
        try:
            check_item(item)
        except ItemTooLarge as error:
            raise StoreRefused(str(error)) from None
        self.call("put_item", Item=item)

    def delete(self, key: Item) -> None:
        self.call("delete_item", Key=key)

    def update(
        self,
        key: Item,
        expression: str,
        values: dict[str, Any] | None = None,
        *,
        condition: Condition | None = None,
        returns: str = "NONE",
    ) -> Item:
        """One UpdateItem; names are written ``#x`` for attribute ``x``, values are plain Python.

        Returns the attributes asked for by ``returns`` (empty for NONE); raises ``ConditionFailed``.
        """
        text = expression + " " + (condition.expression if condition else "")
        kwargs: dict[str, Any] = {
            "Key": key,
            "UpdateExpression": expression,
            "ExpressionAttributeNames": {f"#{word}": word for word in _names_in(text)},
            "ReturnValues": returns,
        }
        if values:
            kwargs["ExpressionAttributeValues"] = {name: attribute(value) for name, value in values.items()}
        if condition:
            kwargs["ConditionExpression"] = condition.expression
        attributes: Item = self.call("update_item", **kwargs).get("Attributes", {})
        return attributes

    def applied(self, key: Item, expression: str, values: dict[str, Any], condition: Condition) -> bool:
        """A conditional update: whether it was applied (False: its condition's rule did not hold)."""
        try:
            self.update(key, expression, values, condition=condition)
        except ConditionFailed:
            return False
        return True

    def query_pages(self, pk: str, *, projection: str | None = None, consistent: bool = False) -> Iterator[list[Item]]:
        """Every item of partition ``pk``, a page at a time."""
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": "PK = :p",
            "ExpressionAttributeValues": {":p": {"S": pk}},
            "ConsistentRead": consistent,
        }
        if projection:
            kwargs["ProjectionExpression"] = projection
        while True:
            response = self.call("query", **kwargs)
            yield response.get("Items", [])
            if "LastEvaluatedKey" not in response:
                return
            kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def query_all(self, pk: str, *, consistent: bool = False) -> Iterator[Item]:
        for page in self.query_pages(pk, consistent=consistent):
            yield from page

    def billing_mode(self) -> str:
        table = self.call("describe_table")["Table"]
        return str(table.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED"))


def expression_names(*expressions: str) -> dict[str, str]:
    """``ExpressionAttributeNames`` for expressions that write attribute ``x`` as ``#x``."""
    return {f"#{word}": word for expression in expressions for word in _names_in(expression)}


def _names_in(expression: str) -> set[str]:
    words: set[str] = set()
    for token in expression.replace(",", " ").replace("(", " ").replace(")", " ").split():
        for part in token.split("."):
            if part.startswith("#"):
                words.add(part[1:])
    return words
