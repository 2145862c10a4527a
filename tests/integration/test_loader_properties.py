"""Generated range files through the real loader: lookups equal the overlap rule applied to the original rows,
at every range's start, end, start-1 and end+1."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fencepost.core.space.addresses import BITS, TOP, V4, V6, format_address, parse_address
from fencepost.core.storage.keys import PARTITION_BITS
from tests.reference import answer_of_rows, check_gap
from tests.support.lookups import batch_lookup
from tests.support.stacks import Stack

Span = tuple[int, int, int]  # family, start, end

_datasets = itertools.count(1)


def _points(family: int) -> st.SearchStrategy[int]:
    shift = BITS[family] - PARTITION_BITS[family]
    near_boundary = st.integers(0, (1 << PARTITION_BITS[family]) - 1).flatmap(
        lambda p: st.integers(max(0, (p << shift) - 3), min(TOP[family], (p << shift) + 3))
    )
    extremes = st.sampled_from([0, 1, TOP[family] - 1, TOP[family]])
    if family == V6:  # and around the IPv4-mapped block, ::ffff:0:0/96, which lookups answer as IPv4
        mapped = st.sampled_from([0xFFFF << 32, (0xFFFF << 32) + 2**32 - 1]).flatmap(
            lambda p: st.integers(p - 3, p + 3)
        )
        extremes = st.one_of(extremes, mapped)
    return st.one_of(st.integers(0, TOP[family]), near_boundary, extremes)


@st.composite
def range_files(draw: st.DrawFn) -> list[Span]:
    """Rows of both families: random, nested in an earlier one, overlapping it, or repeating it exactly."""
    spans: list[Span] = []
    for _ in range(draw(st.integers(1, 14))):
        earlier = [span for span in spans if draw(st.booleans())]
        kind = draw(st.sampled_from(["random", "nested", "overlap", "duplicate"])) if earlier else "random"
        if kind == "random":
            family = draw(st.sampled_from([V4, V6]))
            start, end = sorted(draw(st.lists(_points(family), min_size=2, max_size=2)))
        else:
            family, low, high = draw(st.sampled_from(earlier))
            if kind == "duplicate":
                start, end = low, high
            elif kind == "nested":
                start = draw(st.integers(low, high))
                end = draw(st.integers(start, high))
            else:  # starts inside, ends beyond
                start = draw(st.integers(low, high))
                end = draw(st.integers(high, min(TOP[family], high + 2**40)))
        spans.append((family, start, end))
    return spans


def _csv(spans: list[Span]) -> str:
    rows = [f"{format_address(f, s)},{format_address(f, e)},r{row}" for row, (f, s, e) in enumerate(spans)]
    return "start,end,row\n" + "\n".join(rows) + "\n"


def _expected(spans: list[Span], family: int, address: int) -> str | None:
    answer = answer_of_rows(spans, family, address)
    return None if answer is None else f"r{answer}"


@pytest.mark.parametrize("stack", [{"SETTLE_SECONDS": "0", "CHUNK_ITEMS": "7"}], indirect=True)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spans=range_files())
def test_lookups_follow_the_overlap_rule_after_a_load(stack: Stack, spans: list[Span]) -> None:
    # Given a generated file, loaded through S3 and the loader
    dataset = f"p{next(_datasets)}"
    stack.put(f"{dataset}/ranges.csv", _csv(spans))
    stack.drain()
    assert stack.dataset(dataset)["status"] == "READY"
    # When every start, end, start-1 and end+1 is looked up
    probes = sorted(
        {(f, a) for f, s, e in spans for a in (s - 1, s, e, e + 1) if 0 <= a <= TOP[f]},
    )
    texts = [format_address(f, a) for f, a in probes]
    results: list[dict[str, Any]] = batch_lookup(stack, dataset, texts)
    # Then each answer is the overlap rule's (an IPv4-mapped IPv6 address is answered as IPv4)
    for text, result in zip(texts, results, strict=True):
        family, address = parse_address(text)
        expected = _expected(spans, family, address)
        got = result.get("data", {}).get("row")
        assert got == expected, (text, result)
        if expected is None:
            # And a NOT_FOUND names the version, and the whole stretch no row covers around the address
            assert result["error"]["code"] == "NOT_FOUND", result
            assert result["dataset"] == dataset, result
            assert isinstance(result["version"], int), result
            assert result["ip"] == text, result
            check_gap(spans, family, address, result["gap"])
