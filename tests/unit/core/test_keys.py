"""The key layout: partitions and sort keys order addresses exactly, and the directory finds the one Query."""

from __future__ import annotations

from bisect import bisect_right

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fencepost.core.space.addresses import TOP, V4, V6
from fencepost.core.storage.keys import (
    Directory,
    Probe,
    dataset_id,
    is_dataset_name,
    partition_base,
    partition_label,
    partition_of,
    range_pk,
    sort_key,
)

addresses = {V4: st.integers(0, TOP[V4]), V6: st.integers(0, TOP[V6])}


@pytest.mark.parametrize("family", [V4, V6])
@given(data=st.data())
def test_partition_and_sort_key_order_addresses_exactly(family: int, data: st.DataObject) -> None:
    a, b = sorted(data.draw(st.lists(addresses[family], min_size=2, max_size=2)))
    key_a = (partition_of(family, a), sort_key(family, a))
    key_b = (partition_of(family, b), sort_key(family, b))
    assert (key_a < key_b) == (a < b)
    assert partition_base(family, key_a[0]) + key_a[1] == a


@pytest.mark.parametrize(
    ("family", "address", "label", "offset"),
    [
        (V4, 0, "4/0", 0),
        (V4, 0x01FFFFFF, "4/1", 0xFFFFFF),
        (V4, 0x02000000, "4/2", 0),
        (V4, TOP[V4], "4/255", 0xFFFFFF),
        (V6, 0, "6/00000", 0),
        (V6, 0x20010DB8 << 96, "6/20010", 0xDB8 << 96),
        (V6, TOP[V6], "6/fffff", (1 << 108) - 1),
    ],
)
def test_partition_boundaries(family: int, address: int, label: str, offset: int) -> None:
    assert partition_label(family, partition_of(family, address)) == label
    assert sort_key(family, address) == offset


def test_sort_key_fits_a_dynamodb_number_for_the_top_address() -> None:
    # A Number keeps 38 significant digits; a whole 128-bit address can need 39.
    assert len(str(TOP[V6])) == 39
    assert len(str(sort_key(V6, TOP[V6]))) <= 38


def test_versions_and_datasets_get_their_own_partitions() -> None:
    keys = {range_pk(ds, version, V4, 1) for ds in ("geo", "asn") for version in (3, 4)}
    assert len(keys) == 4


def test_dataset_names() -> None:
    assert is_dataset_name("geo")
    assert is_dataset_name("9lives.v2_final-1")
    assert is_dataset_name("a" * 64)
    for bad in ("", "a" * 65, "_reports", ".hidden", "../etc", "geo/v4", "geo#1", "g eo", "géo"):
        assert not is_dataset_name(bad), bad
    assert dataset_id("geo") == dataset_id("geo") != dataset_id("asn")
    assert dataset_id("geo") < 2**56


def _last_start_at_or_below(starts: list[int], address: int) -> int | None:
    index = bisect_right(starts, address) - 1
    return starts[index] if index >= 0 else None


@pytest.mark.parametrize("family", [V4, V6])
@given(data=st.data())
def test_probe_names_the_partition_of_the_last_start_at_or_below(family: int, data: st.DataObject) -> None:
    # Given piece starts spread over a few partitions, with partitions left empty in between
    partitions = data.draw(st.lists(st.integers(0, 40), min_size=1, max_size=6, unique=True))
    shift = (32 if family == V4 else 128) - (8 if family == V4 else 20)
    span = 1 << shift
    starts = sorted(
        {
            (p << shift) + data.draw(st.integers(0, span - 1))
            for p in partitions
            for _ in range(data.draw(st.integers(1, 3)))
        }
    )
    directory = Directory.of_starts(family, reversed(starts))
    address = data.draw(st.integers(0, (42 << shift) - 1) | st.sampled_from(starts))
    # When
    probe = directory.probe(address)
    # Then the probe's Query (SK <= bound in the named partition, newest first) returns the expected start
    expected = _last_start_at_or_below(starts, address)
    if expected is None:
        assert probe is None
        return
    assert probe is not None
    in_partition = [s for s in starts if partition_of(family, s) == probe.partition]
    found = max(s for s in in_partition if sort_key(family, s) <= probe.bound)
    assert found == expected


def test_probe_at_the_edges_of_the_address_space() -> None:
    directory = Directory.of_starts(V6, [0, TOP[V6]])
    assert directory.probe(0) == Probe(V6, 0, 0)
    assert directory.probe(TOP[V6]) == Probe(V6, partition_of(V6, TOP[V6]), sort_key(V6, TOP[V6]))
    assert directory.probe(TOP[V6] - 1) == Probe(V6, 0, (1 << 108) - 1)
    assert Directory(V4).probe(0) is None


def test_directory_pages_round_trip_and_respect_the_size_limit() -> None:
    directory = Directory.of_starts(V6, [(p << 108) + p * 7 for p in range(0, 2**20, 97)])
    pages = directory.pages(max_chars=1000)
    assert len(pages) > 1
    assert all(len(page) <= 1000 for page in pages)
    assert Directory.from_pages(V6, pages) == directory
    assert Directory(V4).pages(1000) == []
