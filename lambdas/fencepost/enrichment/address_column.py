"""A column of address texts parsed at once: what ``GET /lookup`` accepts (``core.space.addresses.parse_address``),
with the same values, IPv4-mapped IPv6 as IPv4.

Dotted-quad IPv4 (the bulk of any log) is parsed by numpy over the texts as a fixed-width byte matrix: exactly four
decimal octets of 1-3 digits, none above 255, no leading zero, nothing else (what ``inet_pton`` accepts). Every other
text (IPv6, and anything odd) goes through ``parse_address`` itself, one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fencepost.core.space.addresses import V4, AddressError, parse_address

INVALID = 0  # the family of a text that is no address


@dataclass(frozen=True, slots=True)
class Addresses:
    """Parsed texts, by position: ``family`` (4, 6, or ``INVALID``), the IPv4 value or the IPv6 value as 16
    big-endian bytes (zero where the family is another), and why each invalid text is not an address."""

    family: npt.NDArray[np.int8]
    v4: npt.NDArray[np.uint32]
    v6: npt.NDArray[np.bytes_]
    errors: dict[int, str]

    def __len__(self) -> int:
        return len(self.family)


def _dotted(texts: Sequence[str]) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.bool_]]:
    """The IPv4 value of each text that is a strict dotted quad, and which texts are: over the texts joined by line
    breaks, as bytes, cut at every dot and line break into parts (an address is four parts of 1-3 digits)."""
    count = len(texts)
    none = np.zeros(count, np.uint32), np.zeros(count, np.bool_)
    if not count:
        return none
    pad = 3  # bytes before the first text, so that the three characters before any part can be read
    data = np.frombuffer(("\0" * pad + "\n".join(texts) + "\n").encode("ascii", "replace"), dtype=np.uint8)
    line_ends = np.flatnonzero(data == 10).astype(np.int32)
    if len(line_ends) != count:  # a text with a line break in it: each one at a time
        return none
    line_starts = np.concatenate(([pad], line_ends[:-1] + 1)).astype(np.int32)
    dot = data == 46
    digits = data - np.uint8(48)
    digit = digits < 10
    dots = np.add.reduceat(dot, line_starts, dtype=np.int32)  # each text's segment ends with its line break
    others = np.add.reduceat(~digit, line_starts, dtype=np.int32)  # the dots and the line break among them
    ok = (dots == 3) & (others == 4)
    separators = np.flatnonzero(dot | (data == 10)).astype(np.int32)
    text_of_part = np.repeat(np.arange(count, dtype=np.int32), dots + 1)
    starts = np.concatenate(([pad], separators[:-1] + 1)).astype(np.int32)
    length = separators - starts
    zero_led = (length > 1) & (data[starts] == 48)
    ok[text_of_part[(length < 1) | (length > 3) | zero_led]] = False
    value = digits[separators - 1].astype(np.uint16)  # what a part of no digit gives is refused above
    value += (digits[separators - 2] * np.uint16(10)) * (length >= 2)
    value += (digits[separators - 3] * np.uint16(100)) * (length >= 3)
    ok[text_of_part[value > 255]] = False
    first = np.concatenate(([0], np.cumsum(dots + 1, dtype=np.int32)[:-1]))  # each text's first part
    chosen = np.flatnonzero(ok)
    at = first[chosen]
    result = np.zeros(count, np.uint32)
    octets = [value[at + k].astype(np.uint32) for k in range(4)]
    result[chosen] = (octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]
    return result, ok


def parse_addresses(texts: Sequence[str]) -> Addresses:
    """Each text's address, as ``parse_address`` reads it; the invalid ones marked, with the reason."""
    count = len(texts)
    v4, dotted = _dotted(texts)
    family = np.where(dotted, V4, INVALID).astype(np.int8)
    v6 = np.zeros(count, dtype="S16")
    errors: dict[int, str] = {}
    for index in np.flatnonzero(~dotted).tolist():
        try:
            kind, value = parse_address(texts[index])
        except AddressError as error:
            errors[index] = error.reason
            continue
        family[index] = kind
        if kind == V4:
            v4[index] = value
        else:
            v6[index] = value.to_bytes(16, "big")
    return Addresses(family, v4, v6, errors)
