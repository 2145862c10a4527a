"""Both shared real files, whole, through the real path (``make test-slow``): every piece stored once, and
10,000 random addresses plus piece edges answered as the overlap rule applied to the original rows says."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from fencepost.core.space.addresses import V4, V6, format_address
from tests.reference import Reference
from tests.support import V4_FILE, V6_FILE, family_ranges, read_tsv
from tests.support.lookups import batch_lookup, items_of_version
from tests.support.stacks import Stack

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("stack", "path", "family", "columns"),
    [
        ({"CHUNK_ITEMS": "5000", "WRITE_THREADS": "8"}, V4_FILE, V4, 1),
        ({"CHUNK_ITEMS": "5000", "WRITE_THREADS": "8"}, V6_FILE, V6, 3),
    ],
    indirect=["stack"],
)
def test_a_whole_shared_file(stack: Stack, path: Path, family: int, columns: int) -> None:
    rows = read_tsv(path)
    started = time.monotonic()
    stack.put(f"full/{path.name}", path.read_bytes())
    stack.drain(timeout=1800)
    seconds = time.monotonic() - started
    record = stack.dataset("full")
    assert (record["status"], record["ranges"]) == ("READY", len(rows))
    ranges = family_ranges(rows)[family]
    pieces = ranges.pieces()
    stored = items_of_version(stack, "full", record["version"])
    assert record["load"]["items_written"] == stored == len(pieces)  # items / flattened pieces = 1.00
    print(f"\n{path.name}: {len(rows)} rows in {seconds:.1f} s ({len(rows) / seconds:,.0f} rows/s), {stored} items")
    reference = Reference(ranges.starts, ranges.ends)
    rng = random.Random(23)
    low, high = min(ranges.starts), max(ranges.ends)
    addresses = [rng.randint(low, high) for _ in range(10_000)]
    addresses += [a for p in rng.sample(list(pieces), 1000) for a in (p.start, p.end, min(p.end + 1, high))]
    results = batch_lookup(stack, "full", [format_address(family, a) for a in addresses])
    names = [f"col{3 + i}" for i in range(columns)]
    wrong = []
    for address, result in zip(addresses, results, strict=True):
        row = reference.answer(address)
        expected = None if row is None else dict(zip(names, ranges.values[row], strict=True))
        if result.get("data") != expected:
            wrong.append((format_address(family, address), result))
    assert wrong == []
