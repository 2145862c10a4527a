"""IPv6 prefixes answered as the IPv4 address they carry: which prefix an address is under, the IPv4 address it
carries, IPv4 stretches widened into IPv6 terms, and IPv6 gaps cut where an alias begins or ends."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fencepost.core.space.addresses import V4, V6
from fencepost.core.space.aliases import alias_of, alias_text, carried, clip_at_aliases, parse_alias, widened
from fencepost.core.versions.build import FamilyRanges
from fencepost.reading.answers import Answer, Miss
from fencepost.reading.lookup import Lookup
from tests.fakes.ranges import MemoryStore

SIX_TO_FOUR, TEREDO, COMPATIBLE = parse_alias("2002::/16"), parse_alias("2001::/32"), parse_alias("::/96")
ALIASES = (SIX_TO_FOUR, TEREDO, COMPATIBLE)


def v6(text: str) -> int:
    return int(ipaddress.IPv6Address(text))


def v4(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def test_aliases_parse_and_print_and_refuse_what_cannot_carry_an_ipv4_address() -> None:
    assert [alias_text(alias) for alias in ALIASES] == ["2002::/16", "2001::/32", "::/96"]
    for bad in ("2002::/97", "2002::1/16", "1.2.3.0/24", "2002::/x"):
        with pytest.raises(ValueError):  # noqa: PT011 - the messages differ by cause
            parse_alias(bad)


def test_the_address_carried_is_the_32_bits_after_the_prefix() -> None:
    assert alias_of(ALIASES, v6("2002:0102:0304::1")) == SIX_TO_FOUR
    assert carried(SIX_TO_FOUR, v6("2002:0102:0304:ffff::1")) == v4("1.2.3.4")
    assert carried(TEREDO, v6("2001:0:5102:4501:8000::9")) == v4("81.2.69.1")
    assert carried(COMPATIBLE, v6("::1.0.0.7")) == v4("1.0.0.7")
    assert alias_of(ALIASES, v6("2001:db8::1")) is None
    assert alias_of(ALIASES, v6("::1:0:0:0")) is None


def test_an_ipv4_stretch_widens_to_every_ipv6_address_carrying_one_of_its_addresses() -> None:
    start, end = widened(SIX_TO_FOUR, (v4("1.0.0.0"), v4("1.0.0.255")))
    assert (start, end) == (v6("2002:100::"), v6("2002:100:ff:ffff:ffff:ffff:ffff:ffff"))
    assert widened(COMPATIBLE, (5, 9)) == (5, 9)


@given(st.integers(0, 2**128 - 1), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_widening_and_carrying_agree(address: int, low: int, high: int) -> None:
    low, high = min(low, high), max(low, high)
    for alias in ALIASES:
        start, end = widened(alias, (low, high))
        assert alias_of(ALIASES, start) == alias_of(ALIASES, end) == alias
        assert (carried(alias, start), carried(alias, end)) == (low, high)
        if alias_of((alias,), address) is not None:
            assert (start <= address <= end) == (low <= carried(alias, address) <= high)


def test_a_gap_around_an_address_stops_where_an_alias_begins_or_ends() -> None:
    whole = (0, 2**128 - 1)
    assert clip_at_aliases(ALIASES, v6("2001:db8::1"), whole) == (
        v6("2001:1::"),
        v6("2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
    )
    assert clip_at_aliases(ALIASES, v6("2003::"), whole) == (v6("2003::"), 2**128 - 1)
    assert clip_at_aliases(ALIASES, v6("::1:0:0:0"), whole) == (2**32, v6("2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff"))
    inside = (v6("2001:db8::"), v6("2001:db8::ffff"))
    assert clip_at_aliases(ALIASES, v6("2001:db8::1"), inside) == inside


def test_a_lookup_under_an_alias_reads_the_ipv4_piece_and_gaps_elsewhere_stop_at_the_alias() -> None:
    store = MemoryStore()
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    ranges[V4].add(v4("1.2.3.0"), v4("1.2.3.255"), ("AU",))
    ranges[V6].add(v6("2001:db8::"), v6("2001:db8::ffff"), ("ZZ",))
    store.publish("geo", 1, ranges, ["country"], aliases=(SIX_TO_FOUR,))
    lookup = Lookup(store, ttl=60)
    info = lookup.live("geo")
    found = lookup.answer(info, V6, v6("2002:0102:0304:1::9"))
    assert isinstance(found, Answer)
    assert found.hit.values == ["AU"]
    assert found.stretch == (v6("2002:102:300::"), v6("2002:102:3ff:ffff:ffff:ffff:ffff:ffff"))
    assert found.body()["match"]["network"] == "2002:102:300::/40"
    below = lookup.answer(info, V6, v6("2002:0909:0909::"))  # carries 9.9.9.9: the IPv4 gap, widened
    assert isinstance(below, Miss)
    assert below.gap == widened(SIX_TO_FOUR, (v4("1.2.4.0"), 2**32 - 1))
    beside = lookup.answer(info, V6, v6("2003::1"))  # after the IPv6 range: the gap stops where 2002::/16 ends
    assert isinstance(beside, Miss)
    assert beside.gap == (v6("2003::"), 2**128 - 1)
    under = lookup.answer(info, V6, v6("2001:db9::"))
    assert isinstance(under, Miss)
    assert under.gap == (v6("2001:db8::1:0"), v6("2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff"))
