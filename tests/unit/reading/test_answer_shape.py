"""The answer's shape is declared once (``fencepost.reading.answers``): every answer the lookup builds has exactly
the declared fields of its kind, field selection accepts exactly the declared fields, and the OpenAPI document
describes each from the same declaration."""

from __future__ import annotations

import json

import pytest

from fencepost.core.space.addresses import V4, parse_address
from fencepost.core.versions.build import FamilyRanges
from fencepost.http.openapi.document import document
from fencepost.reading import answers
from fencepost.reading.answers import COMBINED, FIELDS, FOUND, MISSED, ON_REQUEST, Answer, Miss
from fencepost.reading.fields import TOP_LEVEL
from fencepost.reading.lookup import Lookup
from tests.fakes.ranges import MemoryStore

ROWS = [("10.0.0.0", "10.0.0.255", "private"), ("8.8.8.0", "8.8.8.255", "google")]
ASKED = "as_of"  # carried only by lookups in the past: added, last, by the route that resolved the instant
JOINED = "joined"  # only in the answers of a dataset that joins keyed datasets (test_keyed_joins.py)


def _lookup() -> tuple[Lookup, MemoryStore]:
    store = MemoryStore()
    ranges = FamilyRanges(V4)
    for start, end, label in ROWS:
        ranges.add(parse_address(start)[1], parse_address(end)[1], (label,))
    for dataset in ("a", "b"):
        store.publish(dataset, 1, {V4: ranges}, ["owner"])
    return Lookup(store, ttl=60), store


def _outcome(lookup: Lookup, dataset: str, ip: str) -> Answer | Miss:
    family, address = parse_address(ip)
    return lookup.answer(lookup.live(dataset), family, address)


@pytest.mark.parametrize("ip", ["10.0.0.7", "8.8.8.8"])
def test_a_found_answer_has_exactly_the_found_fields(ip: str) -> None:
    lookup, _ = _lookup()
    found = _outcome(lookup, "a", ip)
    assert isinstance(found, Answer)
    keys = list(found.body())
    # reserved only for the registries' addresses (10.0.0.0/8 is Private-Use)
    shown = [name for name in FOUND if name not in (ASKED, JOINED) and name not in ON_REQUEST]  # as_of, dates: asked
    assert keys == [name for name in shown if name != "reserved" or ip.startswith("10.")]


def test_a_miss_and_the_several_dataset_answers_use_only_their_declared_fields() -> None:
    lookup, _ = _lookup()
    family, address = parse_address("10.0.1.1")
    missed = _outcome(lookup, "a", "10.0.1.1")
    assert isinstance(missed, Miss)
    assert set(missed.details()) | {"error"} <= set(MISSED)
    both = [_outcome(lookup, name, "10.0.1.1") for name in ("a", "b")]
    combined = answers.combined(family, address, both)
    assert [*combined, ASKED] == list(COMBINED)
    overlay = answers.overlay(family, address, [m for m in both if isinstance(m, Miss)])
    assert not isinstance(overlay, dict)
    assert set(overlay.details) | {"error"} <= set(MISSED)


def test_fields_may_select_every_declared_field_but_the_several_dataset_list() -> None:
    assert set(TOP_LEVEL) == set(FIELDS) - {"answers"}


def test_the_openapi_document_describes_each_answer_field_from_the_declaration() -> None:
    schemas = json.loads(document(100))["components"]["schemas"]
    for model, fields in (("LookupResult", FOUND), ("BatchError", MISSED), ("CombinedResult", COMBINED)):
        properties = schemas[model]["properties"]
        assert list(properties) == list(fields)
        assert all(properties[name]["description"] == FIELDS[name] for name in fields)
