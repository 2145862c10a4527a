"""The key layout's two numbers on the whole shared real files: one item per non-overlapping range, and the IPv6
file spread over many partition keys. (Storing and querying them is checked on DynamoDB Local in tests/integration.)"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fencepost.core.space.addresses import FAMILIES, V4, V6
from fencepost.core.storage.chunks import Book
from fencepost.core.storage.keys import partition_of
from fencepost.core.versions.build import FamilyRanges, Pieces
from tests.reference import Reference
from tests.support import V4_FILE, V6_FILE, family_ranges, read_tsv

WholeFile = tuple[int, dict[int, FamilyRanges], dict[int, Pieces]]


@pytest.fixture(scope="module", params=[(V4_FILE, V4), (V6_FILE, V6)], ids=["ipv4", "ipv6"])
def whole_file(request: pytest.FixtureRequest) -> WholeFile:
    path, family = request.param
    assert isinstance(path, Path)
    ranges = family_ranges(read_tsv(path))
    return family, ranges, {f: ranges[f].pieces() for f in FAMILIES}


def test_one_item_per_piece_and_the_pieces_are_the_fewest_non_overlapping_ranges(whole_file: WholeFile) -> None:
    family, ranges, pieces = whole_file
    flat = pieces[family]
    assert len(ranges[family]) > 100_000
    # One item is built per piece: the items ratio is exactly 1 (the issue allows 1.01)
    assert len(Book(ranges, pieces)) == len(flat)
    # The pieces are disjoint and ascending, and each lies inside the row that answers for it
    starts, ends, sources = list(flat.starts), list(flat.ends), list(flat.sources)
    assert all(s <= e for s, e in zip(starts, ends, strict=True))
    assert all(e < s for e, s in zip(ends, starts[1:], strict=False))
    rows = ranges[family]
    assert all(rows.starts[r] <= s and e <= rows.ends[r] for s, e, r in zip(starts, ends, sources, strict=True))
    # No two touching pieces have the same answer: none could be merged, so there is no fewer-item layout
    touching_same = [k for k in range(len(flat) - 1) if ends[k] + 1 == starts[k + 1] and sources[k] == sources[k + 1]]
    assert touching_same == []
    # And the answering row is the overlap rule's, at sampled piece edges (brute force over every row)
    reference = Reference(ranges[family].starts, ranges[family].ends)
    for k in random.Random(11).sample(range(len(flat)), 300):
        for address in (starts[k], ends[k]):
            assert reference.answer(address) == sources[k], hex(address)


def test_the_ipv6_file_spreads_over_at_least_500_partition_keys(whole_file: WholeFile) -> None:
    family, _, pieces = whole_file
    partitions = {partition_of(family, start) for start in pieces[family].starts}
    if family == V6:
        assert len(partitions) >= 500
    else:
        assert len(partitions) <= 256
        assert len(partitions) > 200  # the IPv4 file covers most /8s
