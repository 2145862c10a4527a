"""Aliases: IPv6 prefixes whose addresses are answered as the IPv4 address they carry.

A MaxMind DB file holds its IPv4 networks once, in the subtree at ``::/96``, and points other prefixes at that
subtree: 6to4 (``2002::/16``: the IPv4 address is in the 32 bits after the prefix) and Teredo (``2001::/32``: the
server's address, likewise). A version built from such a file stores each IPv4 network once, as IPv4, and lists its
aliases; a lookup of an IPv6 address under an alias reads the IPv4 piece of the address it carries and answers in
IPv6 terms: the piece (and range, and gap) is the block of IPv6 addresses that carry an address of the IPv4 one.
(``::ffff:0:0/96`` needs no alias: every lookup answers a mapped address as IPv4.)
"""

from __future__ import annotations

from collections.abc import Sequence

from fencepost.core.space.addresses import BITS, TOP, V4, V6, format_address, parse_boundary

Alias = tuple[int, int]  # the first address of the IPv6 prefix, and its length
Stretch = tuple[int, int]


def parse_alias(text: str) -> Alias:
    """``2002::/16`` as an alias; raises ``ValueError`` unless it is an IPv6 prefix with room for 32 bits after it."""
    address, _, length = text.partition("/")
    family, first = parse_boundary(address)
    size = int(length)
    if family != V6 or not 0 <= size <= BITS[V6] - BITS[V4] or first & ((1 << (BITS[V6] - size)) - 1):
        raise ValueError(f"{text!r} is not an IPv6 prefix that can carry an IPv4 address")
    return first, size


def alias_text(alias: Alias) -> str:
    return f"{format_address(V6, alias[0])}/{alias[1]}"


def _shift(alias: Alias) -> int:
    return BITS[V6] - alias[1] - BITS[V4]


def alias_of(aliases: Sequence[Alias], address: int) -> Alias | None:
    """The alias an IPv6 address is under, if any."""
    for first, length in aliases:
        if address >> (BITS[V6] - length) == first >> (BITS[V6] - length):
            return first, length
    return None


def carried(alias: Alias, address: int) -> int:
    """The IPv4 address an IPv6 address under ``alias`` carries."""
    return (address >> _shift(alias)) & TOP[V4]


def widened(alias: Alias, stretch: Stretch) -> Stretch:
    """The IPv6 addresses under ``alias`` that carry an address of the IPv4 ``stretch``."""
    shift = _shift(alias)
    start, end = stretch
    return alias[0] | start << shift, alias[0] | end << shift | ((1 << shift) - 1)


def clip_at_aliases(aliases: Sequence[Alias], address: int, stretch: Stretch) -> Stretch:
    """An IPv6 stretch around ``address`` (under no alias) cut where an alias's prefix begins or ends: addresses
    under an alias answer as IPv4, whatever the IPv6 pieces around them say."""
    start, end = stretch
    for first, length in aliases:
        last = first | ((1 << (BITS[V6] - length)) - 1)
        if first <= end and address < first:
            end = first - 1
        elif last >= start and address > last:
            start = last + 1
    return start, end
