"""The lookup function on moto's DynamoDB, for the tests of its handler: the ``geo`` rows the ``lookup_handler``
fixture (``tests/handler/conftest.py``) publishes, a fresh function on moto holding any datasets
(``lookup_on_moto``), a sample event sent to it (``call``), and the error cases every route answers alike."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from fencepost.aws.dynamo import Tables
from fencepost.bootstrap.lookup_wiring import LookupFunction, lookup_function
from fencepost.core.versions.build import FamilyRanges
from local.dynamodb import create_table
from tests.support import LambdaContext, event, publish

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


def call(module: LookupFunction, name: str, **changes: Any) -> tuple[int, dict[str, str], Any]:
    response = module.handler(event(name, **changes), LambdaContext())
    headers = {k.lower(): v for k, v in response.get("headers", {}).items()}
    return response["statusCode"], headers, json.loads(response["body"])


ERROR_CASES = [
    ("lookup-get-not-found", 404, "NOT_FOUND"),
    ("lookup-get-invalid-ip", 400, "INVALID_IP"),
    ("lookup-get-missing-ip", 400, "MISSING_IP"),
    ("lookup-get-unknown-dataset", 404, "UNKNOWN_DATASET"),
    ("lookup-get-invalid-dataset", 400, "INVALID_REQUEST"),
    ("lookup-post-too-large", 400, "BATCH_TOO_LARGE"),
    ("lookup-post-bad-json", 400, "INVALID_REQUEST"),
    ("lookup-post-invalid-body", 400, "INVALID_REQUEST"),
    ("dataset-get-unknown", 404, "UNKNOWN_DATASET"),
    ("lookup-get-no-version-at", 404, "NO_VERSION_AT"),
    ("unknown-path", 404, "NOT_FOUND"),
    ("method-not-allowed", 405, "METHOD_NOT_ALLOWED"),
]
ROUTED = {name for name, _, _ in ERROR_CASES} - {"unknown-path", "method-not-allowed"}
