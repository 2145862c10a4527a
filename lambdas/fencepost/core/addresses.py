"""IP addresses as ``(family, integer)`` pairs: strict parsing of what users send, canonical text out.

IPv4-mapped IPv6 addresses (``::ffff:1.2.3.4``) are IPv4 addresses in disguise and are answered as IPv4.
Forms that could mean two things are refused rather than guessed: IPv4 octets with leading zeros, zone ids,
prefixes, surrounding spaces.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Final

V4: Final = 4
V6: Final = 6
FAMILIES: Final = (V4, V6)
BITS: Final = {V4: 32, V6: 128}
TOP: Final = {V4: (1 << 32) - 1, V6: (1 << 128) - 1}

# Longest textual address: an IPv6 address with an embedded dotted quad, e.g. "ffff:...:ffff:255.255.255.255".
MAX_TEXT_LENGTH: Final = 45

_MAPPED_TAG: Final = 0xFFFF


class AddressError(ValueError):
    """Text that is not one unambiguous IP address. ``reason`` is a sentence a person can act on."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(reason)
        self.text = text
        self.reason = reason


def parse_boundary(text: str) -> tuple[int, int]:
    """Parse an address exactly as written into ``(family, value)``: IPv6 text stays IPv6, even when mapped.

    ``inet_pton`` is strict (no leading zeros in IPv4 octets, no zone ids, no spaces) and about ten times faster
    than ``ipaddress``, which matters when a file holds millions of addresses.
    """
    try:
        return V4, int.from_bytes(socket.inet_pton(socket.AF_INET, text), "big")
    except (OSError, UnicodeError, ValueError):
        pass
    try:
        return V6, int.from_bytes(socket.inet_pton(socket.AF_INET6, text), "big")
    except (OSError, UnicodeError, ValueError):
        raise AddressError(
            text, "not an IPv4 or IPv6 address (IPv4 octets are decimal without leading zeros)"
        ) from None


def parse_address(text: str) -> tuple[int, int]:
    """Parse one address typed by a user into ``(family, value)``; IPv4-mapped IPv6 becomes IPv4."""
    if not text:
        raise AddressError(text, "the address is empty")
    if len(text) > MAX_TEXT_LENGTH:
        raise AddressError(text, f"an IP address is at most {MAX_TEXT_LENGTH} characters long")
    if not text.isascii() or not text.isprintable():
        raise AddressError(text, "an IP address holds only ASCII letters, digits, '.' and ':'")
    if text != text.strip():
        raise AddressError(text, "an IP address must not carry leading or trailing spaces")
    if "%" in text:
        raise AddressError(text, "zone ids (the '%...' suffix) are not accepted")
    if "/" in text:
        raise AddressError(text, "a prefix or network ('/n') is not an address")
    family, value = parse_boundary(text)
    if family == V6 and value >> 32 == _MAPPED_TAG:
        return V4, value & TOP[V4]
    return family, value


def format_address(family: int, value: int) -> str:
    """Canonical text (RFC 5952 for IPv6), identical on every Python version."""
    if family == V4:
        return f"{value >> 24}.{(value >> 16) & 255}.{(value >> 8) & 255}.{value & 255}"
    if value >> 32 == _MAPPED_TAG:
        # Python 3.13 writes mapped addresses as ::ffff:a.b.c.d and earlier versions in hex; pin the RFC form.
        return "::ffff:" + format_address(V4, value & TOP[V4])
    return ipaddress.IPv6Address(value).compressed
