"""Listing traffic cannot starve lookups: a container answers ``GET /datasets`` and ``GET /datasets/{name}`` from a
brief cache (one strongly consistent read per name, and one of the list, per TTL), and lookups read the small live
pointer, never the records listings read."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from fencepost.aws.dynamo.serving import pointer_item
from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.http.dataset_routes import LISTING_TTL
from fencepost.model import LivePointer
from tests.support import LambdaContext, event


def _get(module: LookupFunction, name: str) -> tuple[int, Any]:
    response = module.handler(event(name), LambdaContext())
    return response["statusCode"], json.loads(response["body"])


def test_a_burst_of_listings_reads_each_record_once(
    lookup_handler: LookupFunction, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a container's store whose record reads are counted
    tables, reads = lookup_handler.tables, []
    for method in ("get_dataset", "list_datasets"):
        original = getattr(tables, method)

        def counted(*args: Any, _original: Any = original, _method: str = method, **kwargs: Any) -> Any:
            reads.append(_method)
            return _original(*args, **kwargs)

        monkeypatch.setattr(tables, method, counted)
    # When a burst of listings arrives
    for _ in range(50):
        assert _get(lookup_handler, "dataset-get")[0] == 200
        assert _get(lookup_handler, "datasets-list")[0] == 200
    # Then the records were read once for the one dataset and once for the list
    assert sorted(reads) == ["get_dataset", "list_datasets"]
    assert lookup_handler.settings.cache_ttl >= LISTING_TTL


def test_lookups_read_the_live_pointer_not_the_record(lookup_handler: LookupFunction) -> None:
    # Given a dataset whose pointer says version 3 and whose record (what listings read) says otherwise
    tables = lookup_handler.tables
    tables.table.put(pointer_item("geo", LivePointer("geo", 3, 1.0)))
    record = tables.datasets.get("geo", consistent=True)
    assert record is not None
    tables.datasets.put(dataclasses.replace(record, live=99))
    # When an address is looked up
    status, body = _get(lookup_handler, "lookup-get")
    # Then the pointer's version answers
    assert (status, body["version"]) == (200, 3)
    assert _get(lookup_handler, "dataset-get")[1]["version"] == 99
