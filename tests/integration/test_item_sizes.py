"""Records that are not rows are sized too: a version whose column names cannot fit its header fails at once with a
report that says so, and a request DynamoDB refuses as invalid (``ValidationException``) fails the load with the
reason instead of being retried; either way the live version keeps answering."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.support.lookups import GOOD, PROBES, batch_lookup
from tests.support.stacks import Stack


def _answers(stack: Stack, dataset: str) -> list[Any]:
    return [(r.get("data"), r.get("range")) for r in batch_lookup(stack, dataset, PROBES)]


def _wide(columns: int) -> bytes:
    header = "start,end," + ",".join(f"column-{n:05}-{'x' * 90}" for n in range(columns))
    row = "2.0.0.0,2.0.0.255," + ",".join("v" for _ in range(columns))
    return f"{header}\n{row}\n".encode()


def test_more_columns_than_max_columns_fail_the_load_once(stack: Stack) -> None:
    stack.put("wide/good.csv", GOOD)
    stack.drain()
    before = _answers(stack, "wide")
    stack.put("wide/good.csv", _wide(1001))
    stack.drain()
    record = stack.dataset("wide")
    assert (record["status"], record["version"], record["load"]["version"]) == ("FAILED", 1, 2)
    assert record["load"]["problems"][0] == {
        "object": "wide/good.csv",
        "line": None,
        "reason": "the data has more than 1,000 metadata columns (MAX_COLUMNS): choose the columns to keep with "
        '"columns" in _settings.json',
    }
    assert _answers(stack, "wide") == before


@pytest.mark.parametrize("stack", [{"MAX_COLUMNS": "5000"}], indirect=True)
def test_column_names_too_large_for_a_version_header_fail_the_load_once(stack: Stack) -> None:
    # Given a live version
    stack.put("wide/good.csv", GOOD)
    stack.drain()
    before = _answers(stack, "wide")
    # When its file is replaced by one whose 4,500 column names take about 450 KB
    stack.put("wide/good.csv", _wide(4500))
    stack.drain()
    # Then the load FAILED on its first attempt (build 2), saying why, and the live version answers as before
    record = stack.dataset("wide")
    assert (record["status"], record["version"], record["load"]["version"]) == ("FAILED", 1, 2)
    problem = record["load"]["problems"][0]
    assert problem["object"] == "wide/good.csv"
    assert "the 4,500 column names take 468,003 bytes" in problem["reason"]
    assert "in at most 65,536 bytes" in problem["reason"]
    assert _answers(stack, "wide") == before


class RefusesVersionHeaders:
    """A DynamoDB client that refuses every version header as invalid, as DynamoDB refuses an item over 400 KB."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.refused = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def put_item(self, **kwargs: Any) -> Any:
        if kwargs["Item"]["PK"]["S"].startswith("#v#"):
            self.refused += 1
            message = "Item size has exceeded the maximum allowed size"
            raise ClientError({"Error": {"Code": "ValidationException", "Message": message}}, "PutItem")
        return self._client.put_item(**kwargs)


def test_a_request_dynamodb_refuses_as_invalid_fails_the_load_and_is_not_retried(stack: Stack) -> None:
    # Given a live version
    stack.put("geo/good.csv", GOOD)
    stack.drain()
    before = _answers(stack, "geo")
    # When DynamoDB refuses the next version's header as invalid
    refusing = RefusesVersionHeaders(stack.loader.tables.table.client)
    stack.loader.tables.table.client = refusing  # type: ignore[assignment]
    stack.put("geo/more.csv", b"start,end,country\n2.0.0.0,2.0.0.255,XX\n")
    stack.drain()
    # Then the load FAILED on its first attempt, with DynamoDB's reason, and was not retried
    assert refusing.refused == 1
    record = stack.dataset("geo")
    assert (record["status"], record["version"], record["load"]["version"]) == ("FAILED", 1, 2)
    reason = record["load"]["problems"][0]["reason"]
    assert (
        "unexpected error: StoreRefused: DynamoDB refused put_item as invalid (ValidationException: Item size" in reason
    )
    assert "retry shortly" not in reason
    assert stack.report(record["load"]["report"])["status"] == "FAILED"
    # And the live version answers as before
    assert _answers(stack, "geo") == before
