"""Address parsing: strict on what users type, exact at the edges, canonical on the way out."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fencepost.core.space.addresses import TOP, V4, V6, AddressError, format_address, parse_address


@pytest.mark.parametrize(
    ("text", "family", "value"),
    [
        ("0.0.0.0", V4, 0),
        ("255.255.255.255", V4, 2**32 - 1),
        ("1.0.32.5", V4, (1 << 24) + (32 << 8) + 5),
        ("::", V6, 0),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", V6, 2**128 - 1),
        ("FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF", V6, 2**128 - 1),
        ("2001:0db8::1", V6, 0x20010DB8 << 96 | 1),
        ("2001:db8:0:0:0:0:0:1", V6, 0x20010DB8 << 96 | 1),
        ("::1", V6, 1),
        # IPv4-mapped IPv6 is answered as the IPv4 address it carries.
        ("::ffff:1.2.3.4", V4, 0x01020304),
        ("::ffff:0102:0304", V4, 0x01020304),
        ("::ffff:0.0.0.0", V4, 0),
        ("::ffff:255.255.255.255", V4, 2**32 - 1),
        # Not mapped: the IPv4-compatible and NAT64 forms stay IPv6.
        ("::1.2.3.4", V6, 0x01020304),
        ("64:ff9b::1.2.3.4", V6, 0x64FF9B << 96 | 0x01020304),
    ],
)
def test_parses_valid_addresses(text: str, family: int, value: int) -> None:
    assert parse_address(text) == (family, value)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("01.2.3.4", "leading zeros"),
        ("1.2.3.04", "leading zeros"),
        ("fe80::1%eth0", "zone"),
        ("1.2.3.4/24", "prefix"),
        ("2001:db8::/32", "prefix"),
        (" 1.2.3.4", "spaces"),
        ("1.2.3.4 ", "spaces"),
        ("1.2.3.4\n", "ASCII"),
        ("1.2.3", "not an IPv4"),
        ("1.2.3.4.5", "not an IPv4"),
        ("256.1.1.1", "not an IPv4"),
        ("0x1.2.3.4", "not an IPv4"),
        ("1:2:3:4:5:6:7:8:9", "not an IPv4"),
        ("2001:db8:::1", "not an IPv4"),
        ("١.٢.٣.٤", "ASCII"),
        ("1" * 46, "at most 45"),
        ("::ffff:01.2.3.4", "not an IPv4"),
        ("localhost", "not an IPv4"),
    ],
)
def test_refuses_ambiguous_or_invalid_text(text: str, reason: str) -> None:
    with pytest.raises(AddressError) as raised:
        parse_address(text)
    assert reason in raised.value.reason


@pytest.mark.parametrize(
    ("family", "value", "text"),
    [
        (V4, 0, "0.0.0.0"),
        (V4, 2**32 - 1, "255.255.255.255"),
        (V6, 0, "::"),
        (V6, 2**128 - 1, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
        (V6, 0x20010DB8 << 96 | 1, "2001:db8::1"),
        # Inside ::ffff:0:0/96 a stored IPv6 boundary is written the RFC 5952 way on every Python version.
        (V6, 0xFFFF << 32, "::ffff:0.0.0.0"),
        (V6, 0xFFFF << 32 | 0x01020304, "::ffff:1.2.3.4"),
    ],
)
def test_formats_canonically(family: int, value: int, text: str) -> None:
    assert format_address(family, value) == text


@given(st.integers(min_value=0, max_value=TOP[V4]))
def test_ipv4_text_round_trips(value: int) -> None:
    text = format_address(V4, value)
    assert text == str(ipaddress.IPv4Address(value))
    assert parse_address(text) == (V4, value)


@given(st.integers(min_value=0, max_value=TOP[V6]))
def test_ipv6_text_round_trips(value: int) -> None:
    text = format_address(V6, value)
    mapped = value >> 32 == 0xFFFF
    assert parse_address(text) == ((V4, value & TOP[V4]) if mapped else (V6, value))
    assert int(ipaddress.IPv6Address(text)) == value
