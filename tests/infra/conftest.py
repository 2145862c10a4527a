"""Synthesized templates shared across the infra tests: each context is synthesized once per session.

Most templates use a tiny stand-in for the Lambda asset (the template only needs a directory to hash); the
``real`` ones use the asset that ``infra.packaging`` builds, exactly as ``cdk synth`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from infra import packaging
from tests.support.synthesis import ALL_OPTIONS, Synthesize
from tests.synth import Synth
from tests.synth import stub_asset as make_stub_asset
from tests.synth import synth as synth_app


@pytest.fixture(scope="session")
def stub_asset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in Lambda asset: enough for a template, nothing to run."""
    return make_stub_asset(tmp_path_factory.mktemp("stub-asset"))


@pytest.fixture(scope="session")
def real_asset() -> Path:
    """The real asset, built by infra.packaging (a no-op when its cache is up to date)."""
    return packaging.build()


@pytest.fixture(scope="session")
def synthesize(tmp_path_factory: pytest.TempPathFactory, stub_asset: Path, real_asset: Path) -> Synthesize:
    """``synthesize(real=False, **context)``: the app synthesized with that context, cached for the session."""
    cache: dict[tuple[bool, tuple[tuple[str, str], ...]], Synth] = {}

    def synth(*, real: bool = False, **context: Any) -> Synth:
        key = (real, tuple(sorted((k, str(v)) for k, v in context.items())))
        if key not in cache:
            cache[key] = synth_app(
                context,
                asset=real_asset if real else stub_asset,
                outdir=tmp_path_factory.mktemp("cdk.out"),
            )
        return cache[key]

    return synth


@pytest.fixture(scope="module")
def default(synthesize: Synthesize) -> Synth:
    return synthesize()


@pytest.fixture(scope="module")
def options(synthesize: Synthesize) -> Synth:
    return synthesize(**ALL_OPTIONS)
