"""The templates most infra tests read: the default context's, and every option's (``synthesize``, in
``tests/conftest.py``, synthesizes each context once per session, on the assets it holds too)."""

from __future__ import annotations

import pytest

from tests.support.synthesis import ALL_OPTIONS, Synthesize
from tests.synth import Synth


@pytest.fixture(scope="module")
def default(synthesize: Synthesize) -> Synth:
    return synthesize()


@pytest.fixture(scope="module")
def options(synthesize: Synthesize) -> Synth:
    return synthesize(**ALL_OPTIONS)
