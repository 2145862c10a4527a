"""Every item is sized before it is written, with DynamoDB's own rule, and a request DynamoDB refuses as invalid is
never retried; what a dataset record keeps of a load's problems stays within its item."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from fencepost.aws.dynamo.client import Table
from fencepost.aws.dynamo.writer import BulkWriter
from fencepost.core.formats.problems import MAX_REASON_CHARS, RECORD_PROBLEM_BYTES, Problem, for_record
from fencepost.core.storage.items import MAX_ITEM_BYTES, ItemTooLarge, check_item, item_bytes, object_list_bytes
from fencepost.errors import StoreRefused, StoreUnavailable
from fencepost.model import ObjectRef

KEY = {"PK": {"S": "#v#geo#2"}, "SK": {"N": "0"}}


def _table() -> tuple[Table, Stubber]:
    client = boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    return Table(client, "ranges"), Stubber(client)


def test_items_are_sized_as_dynamodb_counts_them() -> None:
    assert item_bytes({"a": {"S": "xyz"}}) == 4
    assert item_bytes({"n": {"N": "12345"}}) == 1 + 4  # about one byte per two digits, plus one
    assert item_bytes({"d": {"NS": ["1", "22"]}}) == 1 + 2 + 2  # sets count their members
    assert item_bytes({"l": {"L": [{"S": "ab"}, {"S": "c"}]}}) == 1 + 3 + (1 + 2) + (1 + 1)
    objects = [ObjectRef("geo/a.csv", "0" * 32, 117)]
    listed = {"L": [{"M": {"key": {"S": "geo/a.csv"}, "etag": {"S": "0" * 32}, "size": {"N": "117"}}}]}
    assert object_list_bytes(objects) == item_bytes({"o": listed}) - 1  # as the codec stores a list of objects


def test_an_item_over_400_kb_is_refused_by_name() -> None:
    check_item({**KEY, "columns": {"S": "x" * (MAX_ITEM_BYTES - 100)}})
    with pytest.raises(ItemTooLarge, match=r"the item #v#geo#2 / 0 takes 460,\d+ bytes; a DynamoDB item holds at most"):
        check_item({**KEY, "columns": {"S": "x" * 460_000}})


def test_the_table_refuses_an_oversized_item_without_sending_it() -> None:
    table, stubber = _table()
    with stubber, pytest.raises(StoreRefused, match="takes 500,"):
        table.put({**KEY, "columns": {"S": "x" * 500_000}})  # (a call would meet the stubber: nothing is queued)


@pytest.mark.parametrize(
    ("code", "raised"),
    [("ValidationException", StoreRefused), ("ProvisionedThroughputExceededException", StoreUnavailable)],
)
def test_a_refusal_as_invalid_is_not_a_passing_fault(code: str, raised: type[Exception]) -> None:
    table, stubber = _table()
    stubber.add_client_error("put_item", code, "Item size has exceeded the maximum allowed size")
    with stubber, pytest.raises(raised) as error:
        table.put({**KEY, "a": {"S": "b"}})
    assert isinstance(error.value, StoreUnavailable) == (code != "ValidationException")


def test_a_batch_write_refused_as_invalid_is_not_retried() -> None:
    table, stubber = _table()
    stubber.add_client_error("batch_write_item", "ValidationException", "Item size has exceeded the maximum")
    writer = BulkWriter(table, sleep=lambda _: None)
    with stubber, pytest.raises(StoreRefused, match="refused BatchWriteItem as invalid"):
        writer.put([{**KEY, "a": {"S": "b"}}], deadline=float("inf"))


def test_a_problem_keeps_a_reason_of_reasonable_length() -> None:
    problem = Problem("geo/a.csv", 1, "x" * 500_000)
    assert len(problem.reason) == MAX_REASON_CHARS
    assert problem.reason.endswith("...")
    assert Problem("geo/a.csv", 1, "short").reason == "short"


def test_a_record_keeps_as_many_problems_as_fit_its_budget() -> None:
    small = [Problem("geo/a.csv", n, "bad row") for n in range(150)]
    assert for_record(small, 100) == small[:100]
    large: list[Any] = [Problem("geo/" + "k" * 1000, n, "é" * MAX_REASON_CHARS) for n in range(100)]
    kept = for_record(large, 100)
    assert 0 < len(kept) < 100
    assert sum(len(p.object.encode()) + len(p.reason.encode()) + 40 for p in kept) <= RECORD_PROBLEM_BYTES
