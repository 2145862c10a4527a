"""The world of a source check (``tests.unit.sources.world``), its publisher serving for the test's length."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.publisher import Publisher
from tests.unit.sources.world import World


@pytest.fixture
def site() -> Iterator[Publisher]:
    with Publisher() as publisher:
        yield publisher


@pytest.fixture
def world(site: Publisher, tmp_path: Path) -> World:
    return World(site, tmp_path)
