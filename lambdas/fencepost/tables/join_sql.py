"""The SQL of the join with a version's table (``tables.schema``), for DuckDB, made here from the layout's own
constants (the levels, the key's shifts, the IPv4 prefix), so that other engines' forms can be made from them too.

``MACROS`` defines, for a text address (as ``GET /lookup`` reads it: ``core.space.addresses.parse_address``; NULL
for a text that is not one):

- ``fp_ip_hex(text)``: the address as 32 hex digits, IPv4 (and IPv4-mapped IPv6) as ``::ffff:a.b.c.d``;
- ``fp_ip(text)``: those 16 bytes (a BLOB), comparable with ``ip_start`` and ``ip_end``;
- ``fp_ip_family(text)``: 4 or 6;
- ``fp_ip_bucket(text, length)``: the key of its bucket at level ``length`` (``tables.buckets.bucket_key``);

and the same from the hex digits (``fp_hex_family``, ``fp_hex_bucket``), so that a query parses each text once.

``enrichment_query`` joins a relation's column of addresses with a table: each distinct address probes its bucket at
every level of its family (a join with the levels, ``LEVELS_SQL``), the probes meet the table's rows by
``ip_bucket`` (an equi-join), the bounds pick the one piece, and every input row gets its address's columns (NULL
where no piece holds it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from fencepost.core.space.addresses import V4, V6
from fencepost.tables.buckets import FAMILY_SHIFT, HELD_BITS, LENGTH_SHIFT, LEVELS
from fencepost.tables.schema import BUCKET, END, START

OCTET: Final = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"  # decimal, no leading zero (as inet_pton)
DOTTED: Final = rf"{OCTET}(\.{OCTET}){{3}}"
V4_PREFIX: Final = "0" * 20 + "ffff"  # ::ffff:0:0/96 in hex: where IPv4 addresses are
HEX_DIGITS: Final = {V4: 8, V6: 12}  # the digits a key's prefix is read from (``HELD_BITS``)


def _hex_number(digits: str) -> str:
    return f"('0x' || {digits})::BIGINT"


def _let(value: str, name: str, body: str) -> str:
    """``body`` with ``name`` bound to ``value`` (a lambda over a list of one): a macro that names its argument more
    than once is expanded once for each, and the query's expression grows with every level of macros."""
    return f"list_transform([{value}], lambda {name}: {body})[1]"


_V6_PLAIN: Final = _let(
    "regexp_extract(t, '[^:]*$')",  # the last group: a dotted quad, if any
    "fp_q",
    f"CASE WHEN regexp_full_match(fp_q, '{DOTTED}') THEN "
    + _let(
        "fp_v4_hex(fp_q)", "fp_x", "lower(regexp_extract(t, '^.*:')) || substr(fp_x, 1, 4) || ':' || substr(fp_x, 5, 4)"
    )
    + " END",
)
_V6_GROUPS: Final = _let(
    "string_split(t, '::')",
    "fp_parts",
    "CASE len(fp_parts) WHEN 1 THEN string_split(t, ':') WHEN 2 THEN "
    + _let(
        "[fp_v6_part(fp_parts[1]), fp_v6_part(fp_parts[2])]",
        "fp_ht",
        "CASE WHEN len(fp_ht[1]) + len(fp_ht[2]) <= 7 THEN list_concat(fp_ht[1], "
        "list_transform(range(8 - len(fp_ht[1]) - len(fp_ht[2])), lambda i: '0'), fp_ht[2]) END",
    )
    + " END",
)
_V6_HEX: Final = _let(
    "g",
    "fp_g",
    "CASE WHEN len(fp_g) = 8 AND list_bool_and(list_transform(fp_g, lambda x: regexp_full_match(x, '[0-9a-f]{1,4}'))) "
    "THEN array_to_string(list_transform(fp_g, lambda x: lpad(x, 4, '0')), '') END",
)


def _bucket(family: int) -> str:
    """``fp_hex_bucket`` for an address of ``family`` as hex digits ``h``: its first ``HELD_BITS`` bits, shifted."""
    first = 33 - HEX_DIGITS[V4] if family == V4 else 1
    held = _hex_number(f"substr(h, {first}, {HEX_DIGITS[family]})")
    level = f"({family}::BIGINT << {FAMILY_SHIFT}) | (length::BIGINT << {LENGTH_SHIFT})"
    return f"{level} | ({held} >> ({HELD_BITS[family]} - length))"


MACROS: Final = f"""
CREATE OR REPLACE MACRO fp_v4_hex(t) AS
    array_to_string(list_transform(string_split(t, '.'), lambda o: lpad(lower(hex(o::INTEGER)), 2, '0')), '');
CREATE OR REPLACE MACRO fp_v6_plain(t) AS CASE WHEN t NOT LIKE '%.%' THEN lower(t) ELSE {_V6_PLAIN} END;
CREATE OR REPLACE MACRO fp_v6_part(p) AS CASE WHEN p = '' THEN []::VARCHAR[] ELSE string_split(p, ':') END;
CREATE OR REPLACE MACRO fp_v6_groups(t) AS {_V6_GROUPS};
CREATE OR REPLACE MACRO fp_v6_hex(g) AS {_V6_HEX};
CREATE OR REPLACE MACRO fp_ip_hex(t) AS CASE
    WHEN regexp_full_match(t, '{DOTTED}') THEN '{V4_PREFIX}' || fp_v4_hex(t)
    WHEN regexp_full_match(t, '[0-9A-Fa-f:.]{{2,45}}') THEN fp_v6_hex(fp_v6_groups(fp_v6_plain(t)))
END;
CREATE OR REPLACE MACRO fp_hex_family(h) AS CASE
    WHEN h IS NULL THEN NULL WHEN starts_with(h, '{V4_PREFIX}') THEN {V4} ELSE {V6}
END;
CREATE OR REPLACE MACRO fp_hex_bucket(h, length) AS CASE fp_hex_family(h)
    WHEN {V4} THEN {_bucket(V4)}
    WHEN {V6} THEN {_bucket(V6)}
END;
CREATE OR REPLACE MACRO fp_ip(t) AS unhex(fp_ip_hex(t));
CREATE OR REPLACE MACRO fp_ip_family(t) AS fp_hex_family(fp_ip_hex(t));
CREATE OR REPLACE MACRO fp_ip_bucket(t, length) AS fp_hex_bucket(fp_ip_hex(t), length);
"""
LEVELS_SQL: Final = "(VALUES {}) AS fp_levels(fp_family, fp_length)".format(
    ", ".join(f"({family}, {length})" for family, lengths in LEVELS.items() for length in lengths)
)


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def enrichment_query(addresses: str, column: str, table: str, selected: Sequence[str], prefix: str = "") -> str:
    """Every row of the relation ``addresses`` with the ``selected`` columns of the ``table`` row whose piece holds
    its ``column``'s address (named ``prefix`` + the column; NULL where no piece does). ``addresses`` and ``table``
    are relations as SQL (a table's name, ``read_parquet('...')``); ``MACROS`` must be defined first."""
    found = ", ".join(f"t.{quoted(name)}" for name in selected)
    shown = ", ".join(f"f.{quoted(name)} AS {quoted(prefix + name)}" for name in selected)
    return f"""
WITH fp_texts AS (
    SELECT DISTINCT {quoted(column)} AS fp_text FROM {addresses}
), fp_parsed AS (
    SELECT fp_text, fp_ip_hex(fp_text) AS fp_hex FROM fp_texts
), fp_probes AS (
    SELECT p.fp_text, unhex(p.fp_hex) AS fp_bin, fp_hex_bucket(p.fp_hex, fp_levels.fp_length) AS fp_key
    FROM fp_parsed AS p JOIN {LEVELS_SQL} ON fp_levels.fp_family = fp_hex_family(p.fp_hex)
), fp_found AS (
    SELECT p.fp_text, {found}
    FROM fp_probes AS p JOIN {table} AS t
    ON t.{BUCKET} = p.fp_key AND p.fp_bin BETWEEN t.{START} AND t.{END}
)
SELECT a.*, {shown}
FROM {addresses} AS a LEFT JOIN fp_found AS f ON f.fp_text = a.{quoted(column)}
"""
