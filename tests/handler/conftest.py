"""The lookup function on moto's DynamoDB: two datasets, ``geo`` (nested ranges, IPv6) and ``default``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from tests.support import SMALL_FILE, fake_aws, family_ranges, read_tsv
from tests.support.handlers import GEO_ROWS, lookup_on_moto


def _on_moto(monkeypatch: pytest.MonkeyPatch) -> Iterator[LookupFunction]:
    datasets = [
        ("geo", 3, family_ranges(GEO_ROWS), ["country"]),
        ("default", 1, family_ranges(read_tsv(SMALL_FILE, 50)), ["asn", "country", "description"]),
    ]
    # Every lookup makes its Query here, as these tests count and fail them; the range cache is tested in
    # tests/unit/test_range_cache*.py, and is on in the integration and end-to-end tests (the local stack).
    environment = {"CACHE_MAX_AGE_SECONDS": "120", "MAX_BATCH": "100", "RANGE_CACHE_BYTES": "0"}
    with lookup_on_moto(monkeypatch, datasets, **environment) as module:
        yield module


@pytest.fixture
def lookup_handler(monkeypatch: pytest.MonkeyPatch) -> Iterator[LookupFunction]:
    """A cold lookup function for each test."""
    yield from _on_moto(monkeypatch)


@pytest.fixture(scope="module")
def warm_lookup_handler() -> Iterator[LookupFunction]:
    """One lookup function for a module's tests, as one warm container answers request after request: for tests
    that only read (its environment set here, as ``tests/conftest.py`` sets each test's)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        fake_aws(monkeypatch)
        yield from _on_moto(monkeypatch)
