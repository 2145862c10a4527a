"""Shared fixtures: DynamoDB Local for the session, a fresh table per test, fake AWS credentials."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from local.dynamodb import DynamoDBLocal, create_table, local_client

# The shared helpers' asserts explain a failure as a test's own asserts do (registered before any test imports them).
pytest.register_assert_rewrite("tests.support")


@pytest.fixture(autouse=True)
def _fake_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may reach real AWS: fake credentials and a fixed region everywhere."""
    from tests.support import fake_aws  # after the rewrite of tests.support is registered

    fake_aws(monkeypatch)


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[DynamoDBLocal]:
    with DynamoDBLocal() as db:
        yield db


@pytest.fixture
def ddb_table(dynamodb_local: DynamoDBLocal) -> Iterator[tuple[Any, str]]:
    """A new, empty ranges table in DynamoDB Local: ``(client, table_name)``."""
    client = local_client(dynamodb_local.endpoint)
    name = f"ranges-{uuid.uuid4().hex[:12]}"
    create_table(client, name)
    yield client, name
    client.delete_table(TableName=name)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest test files first (``tests.support.ordering``): under pytest-xdist, no long file starts last."""
    from tests.support.ordering import longest_first, read_table  # after the rewrite of tests.support is registered

    items[:] = longest_first(items, read_table())
