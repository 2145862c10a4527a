"""Transactions on DynamoDB Local: all writes or none; a cancellation names the condition that did not hold, and an
invalid write is refused for good rather than retried."""

from __future__ import annotations

from typing import Any

import pytest

from fencepost.aws.dynamo.client import Condition, Table
from fencepost.aws.dynamo.transactions import Refused, Transaction
from fencepost.errors import StoreRefused

FIRST = Condition("the first item is new", "attribute_not_exists(PK)")
SECOND = Condition("the second item says yes", "#answer = :yes")


def _key(sk: int) -> dict[str, Any]:
    return {"PK": {"S": "#t"}, "SK": {"N": str(sk)}}


def test_a_refused_transaction_names_its_condition_and_writes_nothing(ddb_table: tuple[Any, str]) -> None:
    client, name = ddb_table
    table = Table(client, name)
    table.put({**_key(2), "answer": {"S": "no"}})
    transaction = Transaction(table)
    transaction.put({**_key(1), "v": {"N": "1"}}, condition=FIRST)
    transaction.update(_key(2), "SET #v = :v", {":v": 2, ":yes": "yes"}, condition=SECOND)
    with pytest.raises(Refused) as refused:
        transaction.commit()
    assert refused.value.condition is SECOND
    assert table.get(_key(1)) is None
    assert "v" not in (table.get(_key(2)) or {})
    # And once the condition holds, both writes apply
    table.put({**_key(2), "answer": {"S": "yes"}})
    transaction.commit()
    assert (table.get(_key(1)) or {})["v"] == {"N": "1"}
    assert (table.get(_key(2)) or {})["v"] == {"N": "2"}


def test_an_item_too_large_is_refused_for_good(ddb_table: tuple[Any, str]) -> None:
    client, name = ddb_table
    transaction = Transaction(Table(client, name))
    transaction.put({**_key(1), "blob": {"S": "x" * 500_000}})
    with pytest.raises(StoreRefused):
        transaction.commit()
