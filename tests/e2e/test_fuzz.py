"""Fuzzing the API from its own OpenAPI document, through the local HTTP server, on DynamoDB Local.

Bounded here (FUZZ_EXAMPLES per operation and mode, 40 by default); ``make fuzz`` runs far more. Valid and
invalid requests alike must get responses that conform to the document (status codes, shapes, content types),
and none may be a 5xx.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.core.result import Ok

from local.stack import ROOT, LocalStack, StackConfig

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))


@pytest.fixture(scope="module")
def running() -> Iterator[LocalStack]:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    config = StackConfig.ephemeral(loader_env={"SETTLE_SECONDS": "0"})
    with LocalStack(config) as stack:
        s3 = stack.client("s3")
        for name in ("_settings.json", "asn-sample.tsv"):
            s3.put_object(Bucket=config.bucket, Key=f"default/{name}", Body=(ROOT / "samples" / name).read_bytes())
        # Every address answers (the sample's ranges nested inside), so valid lookups reach the success path.
        everything = "0.0.0.0\t255.255.255.255\t0\tZZ\tIPv4\n::\tffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff\t0\tZZ\tIPv6\n"
        s3.put_object(Bucket=config.bucket, Key="default/everything.tsv", Body=everything.encode())
        stack.wait_for("default", version=1, timeout=120)
        yield stack


OPERATIONS = ["GET /lookup", "POST /lookup", "GET /datasets", "GET /datasets/{name}"]


@pytest.fixture(scope="module")
def api_schema(running: LocalStack) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{running.api_url}/openapi.json")


def test_the_document_lists_the_fuzzed_operations(api_schema: schemathesis.BaseSchema) -> None:
    results = list(api_schema.get_all_operations())
    assert all(isinstance(result, Ok) for result in results), results
    labels = {result.ok().label for result in results if isinstance(result, Ok)}
    assert labels == set(OPERATIONS)


# GET /datasets takes no input: there is nothing to make invalid.
CASES = [
    (label, mode)
    for label in OPERATIONS
    for mode in GenerationMode
    if (label, mode.value) != ("GET /datasets", "negative")
]


@pytest.mark.parametrize(("label", "mode"), CASES, ids=[f"{label} {mode.value}" for label, mode in CASES])
def test_no_request_breaks_the_api(api_schema: schemathesis.BaseSchema, label: str, mode: GenerationMode) -> None:
    """Valid requests get the documented answers; invalid ones (NEGATIVE) a documented 4xx; never a 5xx."""
    operation = api_schema.find_operation_by_label(label)
    assert operation is not None

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def call(case: schemathesis.Case[Any]) -> None:
        response = case.call_and_validate()
        assert response.status_code < 500

    call()
