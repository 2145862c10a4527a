"""The range cache cannot change an answer: random workloads over generated datasets, with version switches, several
datasets, ``mode=first`` and batches, answered by two apps over one store (one with a small range cache that evicts
all the time, one with none) must give the same status and body for every request, with no more Queries."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.several import _NoListings
from fencepost.core.space.addresses import TOP, V4, V6, format_address, unmapped
from fencepost.core.versions.build import FamilyRanges
from fencepost.http.app import HttpApi, create_app
from fencepost.observability import Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import CacheLimits, LookupSettings, TableSettings
from tests.fakes.ranges import MemoryStore
from tests.support import LambdaContext, event
from tests.support.several import Row, dataset_name, datasets, probes, publish_dataset

OBS = Observability(service="fencepost-test", tracing=False)


def _app(store: MemoryStore, range_bytes: int) -> HttpApi:
    settings = LookupSettings(table=TableSettings("t"), cache_ttl=0.0, caches=CacheLimits(range_bytes=range_bytes))
    return create_app(settings, Lookup(store, 0.0, limits=settings.caches), _NoListings(), OBS)


def _publish_as(store: MemoryStore, index: int, version: int, rows: list[Row]) -> None:
    """Rows published as dataset ``index`` under another version number (as ``publish_dataset`` stores them)."""
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    for row, (family, start, end) in enumerate(rows):
        for part_family, part_start, part_end in unmapped(family, start, end):
            ranges[part_family].add(part_start, part_end, (f"r{row}",))
    store.publish(dataset_name(index), version, ranges, ["label"])


@st.composite
def workloads(draw: st.DrawFn) -> tuple[list[list[Row]], list[tuple[Any, ...]]]:
    data = draw(datasets())
    points = probes(data, [])
    # Addresses near each other, so that many land in stretches already answered
    near = st.sampled_from(points or [(V4, 0)]).flatmap(
        lambda p: st.tuples(st.just(p[0]), st.integers(max(0, p[1] - 3), min(TOP[p[0]], p[1] + 3)))
    )
    names = st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=len(data), unique=True)
    steps: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(5, 40))):
        kind = draw(st.sampled_from(["get", "get", "get", "batch", "switch"]))
        mode = draw(st.sampled_from(["all", "first"]))
        if kind == "switch":  # a dataset's next version holds another dataset's rows
            steps.append(("switch", draw(st.integers(0, len(data) - 1)), draw(st.sampled_from(data))))
        elif kind == "get":
            steps.append(("get", draw(names), mode, draw(near)))
        else:
            steps.append(("batch", draw(names), mode, draw(st.lists(near, min_size=1, max_size=5))))
    return data, steps


def _request(step: tuple[Any, ...]) -> dict[str, Any]:
    kind, indices, mode, where = step
    listed = ",".join(dataset_name(index) for index in indices)
    if kind == "get":
        family, address = where
        query = {"ip": format_address(family, address), "dataset": listed, "mode": mode}
        return event("lookup-get", queryStringParameters=query)
    body = {
        "ips": [format_address(f, a) for f, a in where],
        "datasets": [dataset_name(i) for i in indices],
        "mode": mode,
    }
    return event("lookup-post", body=json.dumps(body))


@given(workload=workloads())
@settings(max_examples=120, deadline=None)
def test_cached_and_uncached_lookups_agree(workload: tuple[list[list[Row]], list[tuple[Any, ...]]]) -> None:
    data, steps = workload
    store = MemoryStore()
    for index, rows in enumerate(data):
        publish_dataset(store, index, rows)
    cached, uncached = _app(store, range_bytes=4_000), _app(store, range_bytes=0)  # about 4 entries: always evicting
    versions = {index: 10 + index for index in range(len(data))}
    queries = {"cached": 0, "uncached": 0}
    for step in steps:
        if step[0] == "switch":
            _, index, rows = step
            versions[index] += 100
            _publish_as(store, index, versions[index], rows)
            continue
        request = _request(step)
        before = store.queries
        one = cached.handle(request, LambdaContext())
        queries["cached"] += store.queries - before
        before = store.queries
        other = uncached.handle(request, LambdaContext())
        queries["uncached"] += store.queries - before
        assert (one["statusCode"], json.loads(one["body"])) == (other["statusCode"], json.loads(other["body"])), step
    assert queries["cached"] <= queries["uncached"]
