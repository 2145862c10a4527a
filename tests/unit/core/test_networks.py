"""CIDR blocks of ranges, checked against brute-force definitions and against ``ipaddress`` as an independent cover."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fencepost.core.space.addresses import BITS, TOP, V4, V6
from fencepost.core.space.networks import cidrs, largest_block, network, range_blocks


def _inside(family: int, first: int, length: int, start: int, end: int) -> bool:
    host = BITS[family] - length
    return first >> host << host == first and start <= first and first + (1 << host) - 1 <= end


def _boundary(family: int) -> st.SearchStrategy[int]:
    """Addresses near the edges and near powers of two, where off-by-one errors hide, and anywhere at all."""
    top = TOP[family]
    near_powers = st.builds(
        lambda bit, delta: min(max((1 << bit) + delta, 0), top),
        st.integers(0, BITS[family]),
        st.integers(-2, 2),
    )
    return st.one_of(st.sampled_from([0, 1, top - 1, top]), near_powers, st.integers(0, top))


@st.composite
def ranges_with_address(draw: st.DrawFn) -> tuple[int, int, int, int]:
    family = draw(st.sampled_from([V4, V6]))
    a, b = draw(_boundary(family)), draw(_boundary(family))
    start, end = min(a, b), max(a, b)
    address = draw(st.one_of(st.sampled_from([start, end]), st.integers(start, end)))
    return family, start, end, address


@given(ranges_with_address())
def test_the_network_is_the_largest_block_inside_the_range_around_the_address(
    case: tuple[int, int, int, int],
) -> None:
    family, start, end, address = case
    first, length = largest_block(family, start, end, address)
    host = BITS[family] - length
    assert first <= address <= first + (1 << host) - 1
    assert _inside(family, first, length, start, end)
    if length > 0:  # the block one bit larger around the address would leave the range
        wider = address >> (host + 1) << (host + 1)
        assert not _inside(family, wider, length - 1, start, end)


@given(ranges_with_address())
def test_the_network_text_is_what_ipaddress_reads_back_as_that_block(case: tuple[int, int, int, int]) -> None:
    family, start, end, address = case
    block = ipaddress.ip_network(network(family, start, end, address))
    assert block.version == family
    assert (int(block.network_address), block.prefixlen) == largest_block(family, start, end, address)


@given(ranges_with_address())
def test_the_cidrs_cover_the_range_exactly_with_the_fewest_blocks(case: tuple[int, int, int, int]) -> None:
    family, start, end, _ = case
    blocks = range_blocks(family, start, end)
    position = start
    for first, length in blocks:  # in order, touching, each aligned: exactly start..end, nothing else
        assert first == position
        assert _inside(family, first, length, start, end)
        position = first + (1 << (BITS[family] - length))
    assert position == end + 1
    make = ipaddress.IPv4Address if family == V4 else ipaddress.IPv6Address
    reference = list(ipaddress.summarize_address_range(make(start), make(end)))
    assert len(blocks) == len(reference)  # the standard library's cover is minimal: no shorter list exists
    assert [ipaddress.ip_network(text) for text in cidrs(family, start, end)] == reference


@pytest.mark.parametrize(
    ("family", "start", "end", "address", "expected"),
    [
        (V4, 0, TOP[V4], 0, "0.0.0.0/0"),
        (V4, 0, TOP[V4], TOP[V4], "0.0.0.0/0"),
        (V6, 0, TOP[V6], 12345, "::/0"),
        (V6, TOP[V6], TOP[V6], TOP[V6], "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128"),
        (V6, 0, 0, 0, "::/128"),
        (V4, 0x01002000, 0x01003FFF, 0x01002005, "1.0.32.0/19"),
        (V4, 0x01004000, 0x0100FFFF, 0x01004001, "1.0.64.0/18"),  # a piece cut by a nested range
        (V4, 0x01004000, 0x0100FFFF, 0x01008001, "1.0.128.0/17"),
        (V4, 1, TOP[V4] - 1, 0x80000000, "128.0.0.0/2"),
        (V6, 0x20010DB8 << 96, (0x20010DB8 << 96) | (1 << 96) - 1, (0x20010DB8 << 96) | 1, "2001:db8::/32"),
    ],
)
def test_networks_at_the_edges(family: int, start: int, end: int, address: int, expected: str) -> None:
    assert network(family, start, end, address) == expected


def test_the_longest_covers_are_32_blocks_for_ipv4_and_254_for_ipv6() -> None:
    assert len(cidrs(V4, 0, TOP[V4] - 1)) == 32
    assert cidrs(V4, 0, TOP[V4] - 1)[-1] == "255.255.255.254/32"
    assert len(cidrs(V6, 1, TOP[V6] - 1)) == 254
    assert cidrs(V6, 0, TOP[V6]) == ["::/0"]
    assert cidrs(V4, 5, 5) == ["0.0.0.5/32"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: network(V4, 10, 20, 21), "outside"),
        (lambda: network(V4, 20, 10, 15), "not a range"),
        (lambda: cidrs(V4, 0, TOP[V4] + 1), "not a range"),
        (lambda: cidrs(5, 0, 1), "unknown address family"),
    ],
)
def test_impossible_ranges_are_refused(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
