"""The Lambda assets, and the templates most infra tests read: the default context's, and every option's
(``synthesize``, in ``tests/conftest.py``, synthesizes each context once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from infra import packaging
from tests.support.synthesis import ALL_OPTIONS, Synthesize
from tests.synth import Synth
from tests.synth import stub_asset as make_stub_asset


@pytest.fixture(scope="session")
def stub_asset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in Lambda asset: enough for a template, nothing to run."""
    return make_stub_asset(tmp_path_factory.mktemp("stub-asset"))


@pytest.fixture(scope="session")
def real_asset() -> Path:
    """The real asset, built by infra.packaging (a no-op when its cache is up to date)."""
    return packaging.build()


@pytest.fixture(scope="module")
def default(synthesize: Synthesize) -> Synth:
    return synthesize()


@pytest.fixture(scope="module")
def options(synthesize: Synthesize) -> Synth:
    return synthesize(**ALL_OPTIONS)
