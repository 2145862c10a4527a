"""The lookup function on moto's DynamoDB: two datasets, ``geo`` (nested ranges, IPv6) and ``default``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

import boto3
import pytest
from moto import mock_aws

from fencepost.aws.dynamo import Tables
from fencepost.bootstrap.lookup_wiring import LookupFunction, lookup_function
from fencepost.core.versions.build import FamilyRanges
from local.dynamodb import create_table
from tests.support import SMALL_FILE, family_ranges, publish, read_tsv

GEO_ROWS = [
    ("1.0.0.0", "1.0.255.255", "AU"),
    ("1.0.32.0", "1.0.63.255", "CN"),  # nested inside the /16 above
    ("8.8.8.0", "8.8.8.255", "US"),
    ("2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "ZZ"),
]


Published = tuple[str, int, dict[int, FamilyRanges], list[str]]  # dataset, version, ranges, columns


@contextlib.contextmanager
def lookup_on_moto(
    monkeypatch: pytest.MonkeyPatch, datasets: Iterable[Published], **environment: str
) -> Iterator[LookupFunction]:
    """A fresh lookup function (a cold container) on moto's table ``ranges``, holding ``datasets``."""
    monkeypatch.setenv("TABLE_NAME", "ranges")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_table(client, "ranges")
        tables = Tables.connect(client, "ranges")
        for dataset, version, ranges, columns in datasets:
            publish(tables, dataset, version, ranges, columns)
        yield lookup_function()


@pytest.fixture
def lookup_handler(monkeypatch: pytest.MonkeyPatch) -> Iterator[LookupFunction]:
    datasets = [
        ("geo", 3, family_ranges(GEO_ROWS), ["country"]),
        ("default", 1, family_ranges(read_tsv(SMALL_FILE, 50)), ["asn", "country", "description"]),
    ]
    # Every lookup makes its Query here, as these tests count and fail them; the range cache is tested in
    # tests/unit/test_range_cache*.py, and is on in the integration and end-to-end tests (the local stack).
    environment = {"CACHE_MAX_AGE_SECONDS": "120", "MAX_BATCH": "100", "RANGE_CACHE_BYTES": "0"}
    with lookup_on_moto(monkeypatch, datasets, **environment) as module:
        yield module
