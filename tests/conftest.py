"""Shared fixtures: DynamoDB Local for the session, a fresh table per test, fake AWS credentials, the app
synthesized once per context; and how the session runs: its collector's pace, the order and units of its work."""

from __future__ import annotations

import gc
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


@pytest.fixture(scope="session")
def synthesize(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """``synthesize(real=False, **context)``: the app synthesized with that context, once per session (the files
    that call it share a worker: ``tests.support.ordering``). Most templates use a tiny stand-in for the Lambda asset
    (the template only needs a directory to hash); ``real`` ones the asset ``infra.packaging`` builds, as
    ``cdk synth`` does."""
    from infra import packaging
    from tests.synth import stub_asset, synth

    stub = stub_asset(tmp_path_factory.mktemp("stub-asset"))
    cache: dict[tuple[bool, tuple[tuple[str, str], ...]], Any] = {}

    def synthesized(*, real: bool = False, **context: Any) -> Any:
        key = (real, tuple(sorted((k, str(v)) for k, v in context.items())))
        if key not in cache:
            asset = packaging.build() if real else stub  # the build is a no-op when its cache is up to date
            cache[key] = synth(context, asset=asset, outdir=tmp_path_factory.mktemp("cdk.out"))
        return cache[key]

    return synthesized


def pytest_configure() -> None:
    """Python's cyclic garbage collector runs after every 700 allocations by default; the tests allocate by the
    million (rows, answers, clients), so it ran for a sixth of their CPU. A collection every 100,000 allocations
    (and a full one every 20 million) frees the same cycles, a little later."""
    gc.set_threshold(100_000, 20, 10)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish() -> None:
    """What collection built (modules, parametrized tests, strategies) lives as long as the session: frozen out of
    the collector's reach, no full collection walks it again."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` with ``tests.support.ordering``'s units of work: a file each, the files that synthesize
    the app together."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.support.ordering import ByScope  # after the rewrite of tests.support is registered

    return ByScope(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest test files first (``tests.support.ordering``): under pytest-xdist, no long file starts last."""
    from tests.support.ordering import longest_first, read_table  # after the rewrite of tests.support is registered

    items[:] = longest_first(items, read_table())
