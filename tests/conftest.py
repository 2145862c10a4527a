"""Shared fixtures: DynamoDB Local for the session, a fresh table per test, fake AWS credentials, the app
synthesized once per context; and how the session runs: its collector's pace, the order and units of its work."""

from __future__ import annotations

import gc
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from local.dynamodb import DynamoDBLocal, create_table, local_client

if TYPE_CHECKING:  # the CDK is imported by the tests that synthesize, not by every worker's conftest
    from tests.support.synthesis import Synthesize
    from tests.synth import Synth

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
def stub_asset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in Lambda asset: enough for a template (CDK only hashes its directory), nothing to run."""
    from tests.synth import stub_asset as make_stub_asset

    return make_stub_asset(tmp_path_factory.mktemp("stub-asset"))


@pytest.fixture(scope="session")
def real_asset() -> Path:
    """The real asset, built by ``infra.packaging`` (a no-op when its cache is up to date)."""
    from infra import packaging

    return packaging.build()


@pytest.fixture(scope="session")
def synthesize(
    tmp_path_factory: pytest.TempPathFactory, stub_asset: Path, request: pytest.FixtureRequest
) -> Synthesize:
    """``synthesize(real=False, **context)``: the app synthesized with that context, once per session (the files
    that call it share a worker: ``tests.support.ordering``), on ``stub_asset``, or on ``real_asset`` as ``cdk synth``
    does (built only when a real template is asked for)."""
    from tests.synth import synth

    cache: dict[tuple[bool, tuple[tuple[str, str], ...]], Synth] = {}

    def synthesized(*, real: bool = False, **context: Any) -> Synth:
        key = (real, tuple(sorted((k, str(v)) for k, v in context.items())))
        if key not in cache:
            asset = request.getfixturevalue("real_asset") if real else stub_asset
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
