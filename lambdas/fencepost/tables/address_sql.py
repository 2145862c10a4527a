"""An address text as SQL reads it, written once for every dialect (``tables.dialects``): the same 32 hex digits,
family and bucket keys as ``GET /lookup`` (``core.space.addresses.parse_address``) and the table's layout
(``tables.schema``, ``tables.buckets``) give.

- ``ip_hex(d, text)``: the address as 32 lowercase hex digits, IPv4 (and IPv4-mapped IPv6) as ``::ffff:a.b.c.d``;
  NULL for a text that is no address (strict dotted quads, IPv6 in every form ``inet_pton`` takes);
- ``hex_family(hex)``: 4 or 6;
- ``levels()``: the levels an address probes as a relation ``fp_levels``, one row a level of a family: its family,
  length, the key of its first bucket (``fp_base``) and where its prefix is in the hex digits (``fp_first``,
  ``fp_digits``: the levels are byte-aligned, so a prefix is whole digits);
- ``probe_key(d, hex)``: the key of the address's bucket at the level of that row: ``fp_base`` plus the prefix's
  digits as a number (``tables.buckets.bucket_key``).

Each part a text is read through is bound once (``Dialect.let``), so the expression stays linear in its parts.
"""

from __future__ import annotations

from typing import Final

from fencepost.core.space.addresses import V4, V6
from fencepost.tables.buckets import LEVELS, key_base
from fencepost.tables.dialects import Dialect

OCTET: Final = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"  # decimal, no leading zero (as inet_pton)
DOTTED: Final = rf"{OCTET}([.]{OCTET}){{3}}"
V4_PREFIX: Final = "0" * 20 + "ffff"  # ::ffff:0:0/96 in hex: where IPv4 addresses are
FIRST_DIGIT: Final = {V4: 25, V6: 1}  # where a family's address starts in the 32 hex digits (1-based)
assert all(length % 4 == 0 for lengths in LEVELS.values() for length in lengths)


def v4_hex(d: Dialect, text: str) -> str:
    """A dotted quad's 8 hex digits (``text`` already matched ``DOTTED``)."""
    return d.join(d.each(d.split(text, "."), "fp_o", d.octet_hex("fp_o")))


def _v6_plain(d: Dialect, text: str) -> str:
    """An IPv6 text in lower case with a trailing dotted quad as two groups of hex digits (NULL if it is not one)."""
    head = f"lower(substr({text}, 1, length({text}) - length(fp_q)))"
    quad = d.let(v4_hex(d, "fp_q"), "fp_x", f"{head} || substr(fp_x, 1, 4) || ':' || substr(fp_x, 5, 4)")
    dotted = d.full_match("fp_q", d.literal(DOTTED))
    last = d.let(d.at(d.split(text, ":"), "-1"), "fp_q", f"CASE WHEN {dotted} THEN {quad} END")
    return f"CASE WHEN {text} NOT LIKE '%.%' THEN lower({text}) ELSE {last} END"


def _v6_groups(d: Dialect, text: str) -> str:
    """The 8 groups of an IPv6 text, ``::`` expanded (NULL where it cannot be)."""

    def part(side: str) -> str:
        return f"CASE WHEN {side} = '' THEN {d.empty} ELSE {d.split(side, ':')} END"

    sizes = f"{d.size('fp_h')} + {d.size('fp_t')}"
    filled = f"CASE WHEN {sizes} <= 7 THEN {d.concat('fp_h', d.zeros(f'8 - ({sizes})'), 'fp_t')} END"
    both = d.let(part(d.at("fp_parts", "1")), "fp_h", d.let(part(d.at("fp_parts", "2")), "fp_t", filled))
    body = f"CASE {d.size('fp_parts')} WHEN 1 THEN {d.split(text, ':')} WHEN 2 THEN {both} END"
    return d.let(d.split(text, "::"), "fp_parts", body)


def _v6_hex(d: Dialect, groups: str) -> str:
    valid = d.every("fp_g", "fp_x", d.full_match("fp_x", d.literal("[0-9a-f]{1,4}")))
    digits = d.join(d.each("fp_g", "fp_x", "lpad(fp_x, 4, '0')"))
    return d.let(groups, "fp_g", f"CASE WHEN {d.size('fp_g')} = 8 AND {valid} THEN {digits} END")


def ip_hex(d: Dialect, text: str) -> str:
    """The address ``text`` (a column or a name) as 32 hex digits, NULL if it is not one."""
    v6 = _v6_hex(d, d.let(_v6_plain(d, text), "fp_p", _v6_groups(d, "fp_p")))
    return (
        f"CASE WHEN {d.full_match(text, d.literal(DOTTED))} THEN '{V4_PREFIX}' || {v4_hex(d, text)} "
        f"WHEN {d.full_match(text, d.literal('[0-9A-Fa-f:.]{2,45}'))} THEN {v6} END"
    )


def hex_family(hex_: str) -> str:
    return f"CASE WHEN {hex_} IS NULL THEN NULL WHEN substr({hex_}, 1, 24) = '{V4_PREFIX}' THEN {V4} ELSE {V6} END"


def levels() -> str:
    rows = ", ".join(
        f"({family}, {length}, CAST({key_base(family, length)} AS BIGINT), {FIRST_DIGIT[family]}, {length // 4})"
        for family, lengths in LEVELS.items()
        for length in lengths
    )
    return f"(VALUES {rows}) AS fp_levels(fp_family, fp_length, fp_base, fp_first, fp_digits)"


def probe_key(d: Dialect, hex_: str) -> str:
    digits = f"substr({hex_}, fp_levels.fp_first, fp_levels.fp_digits)"
    return "fp_levels.fp_base + " + d.hex_number(f"'0' || {digits}")
