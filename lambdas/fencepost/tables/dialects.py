"""The SQL engines a version's table is joined in, each as the few functions that differ between them.

The join's SQL (``tables.address_sql``, ``tables.join_sql``) is written once, in terms of a ``Dialect``: what it
calls a list, a lambda, a regular expression matched in full, a hex number. Each engine gets its own spelling here
and nowhere else:

- ``DUCKDB`` (DuckDB 1.x/2.x): ``list_transform(l, lambda x: ...)``, ``regexp_full_match``, ``('0x' || h)::BIGINT``;
- ``TRINO`` (Athena engine 3): ``transform(l, x -> ...)``, ``regexp_like`` anchored with ``\\A...\\z`` (its
  default regex library, Joni, reads ``^``/``$`` as line anchors), ``from_base(h, 16)``, ``from_hex``;
- ``SPARK`` (Spark SQL 3.5, Glue 5.0): ``transform``/``forall``, ``rlike`` anchored with ``\\A...\\z``, ``split`` by a
  regex, ``conv(h, 16, 10)``, ``unhex``; backslashes doubled in its string literals, backticks for names.

Lists are indexed from 1 in every dialect (``element_at`` in Trino and Spark); no string literal holds a quote.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

Template = Callable[..., str]


@dataclass(frozen=True, slots=True)
class Dialect:
    """One engine's spelling of the operations the join's SQL uses (each a function of SQL texts)."""

    name: str  # as sqlglot names the dialect
    quote_char: str
    escape_backslash: bool  # a backslash in a string literal starts an escape
    full_match: Template  # (text, pattern): the whole text matches the pattern
    split: Template  # (text, separator): the pieces between separators, as a list
    at: Template  # (list, index): an element, from 1; NULL out of bounds
    size: Template  # (list,)
    one: Template  # (value,): a list of that one value
    concat: Template  # (lists...,)
    zeros: Template  # (count,): a list of ``count`` texts '0' (count >= 1)
    empty: str  # an empty list of texts
    each: Template  # (list, name, body): body for each element (named ``name``)
    every: Template  # (list, name, condition): the condition holds for every element
    join: Template  # (list,): the texts joined, no separator
    octet_hex: Template  # (decimal text 0-255,): two lowercase hex digits
    hex_number: Template  # (hex digits,): a BIGINT
    unhex: Template  # (hex digits,): the bytes

    def literal(self, text: str) -> str:
        if "'" in text:
            raise ValueError("the join's SQL writes no quote in a literal")
        return "'" + (text.replace("\\", "\\\\") if self.escape_backslash else text) + "'"

    def name_of(self, name: str) -> str:
        """A column or alias name, quoted."""
        quote = self.quote_char
        return quote + name.replace(quote, quote * 2) + quote

    def let(self, value: str, name: str, body: str) -> str:
        """``body`` with ``name`` bound to ``value`` (the body's value for a list of one): an expression that names
        a part more than once would otherwise repeat it, and grow with each level of nesting."""
        return self.at(self.each(self.one(value), name, body), "1")


DUCKDB: Final = Dialect(
    name="duckdb",
    quote_char='"',
    escape_backslash=False,
    full_match=lambda text, pattern: f"regexp_full_match({text}, {pattern})",
    split=lambda text, sep: f"string_split({text}, '{sep}')",
    at=lambda items, index: f"{items}[{index}]",
    size=lambda items: f"len({items})",
    one=lambda value: f"[{value}]",
    concat=lambda *lists: f"list_concat({', '.join(lists)})",
    zeros=lambda count: f"list_transform(range({count}), lambda fp_i: '0')",
    empty="[]::VARCHAR[]",
    each=lambda items, name, body: f"list_transform({items}, lambda {name}: {body})",
    every=lambda items, name, cond: f"list_bool_and(list_transform({items}, lambda {name}: {cond}))",
    join=lambda items: f"array_to_string({items}, '')",
    octet_hex=lambda octet: f"lpad(lower(hex({octet}::INTEGER)), 2, '0')",
    hex_number=lambda digits: f"('0x' || {digits})::BIGINT",
    unhex=lambda digits: f"unhex({digits})",
)
TRINO: Final = Dialect(
    name="trino",
    quote_char='"',
    escape_backslash=False,
    full_match=lambda text, pattern: f"regexp_like({text}, '\\A(?:{pattern[1:-1]})\\z')",
    split=lambda text, sep: f"split({text}, '{sep}')",
    at=lambda items, index: f"element_at({items}, {index})",
    size=lambda items: f"cardinality({items})",
    one=lambda value: f"ARRAY[{value}]",
    concat=lambda *lists: f"concat({', '.join(lists)})",
    zeros=lambda count: f"repeat('0', CAST({count} AS INTEGER))",
    empty="CAST(ARRAY[] AS ARRAY(VARCHAR))",
    each=lambda items, name, body: f"transform({items}, {name} -> {body})",
    every=lambda items, name, cond: f"all_match({items}, {name} -> {cond})",
    join=lambda items: f"array_join({items}, '')",
    octet_hex=lambda octet: f"lpad(to_base(CAST({octet} AS BIGINT), 16), 2, '0')",
    hex_number=lambda digits: f"from_base({digits}, 16)",
    unhex=lambda digits: f"from_hex({digits})",
)
SPARK: Final = Dialect(
    name="spark",
    quote_char="`",
    escape_backslash=True,
    # ``pattern`` comes as a literal with its backslashes doubled: the anchors are doubled to match
    full_match=lambda text, pattern: f"({text} RLIKE '\\\\A(?:{pattern[1:-1]})\\\\z')",
    split=lambda text, sep: f"split({text}, '{''.join(f'[{c}]' for c in sep)}', -1)",
    at=lambda items, index: f"element_at({items}, {index})",
    size=lambda items: f"size({items})",
    one=lambda value: f"array({value})",
    concat=lambda *lists: f"concat({', '.join(lists)})",
    zeros=lambda count: f"array_repeat('0', {count})",
    empty="CAST(array() AS ARRAY<STRING>)",
    each=lambda items, name, body: f"transform({items}, {name} -> {body})",
    every=lambda items, name, cond: f"forall({items}, {name} -> {cond})",
    join=lambda items: f"array_join({items}, '')",
    octet_hex=lambda octet: f"lpad(lower(hex(CAST({octet} AS INT))), 2, '0')",
    hex_number=lambda digits: f"CAST(conv({digits}, 16, 10) AS BIGINT)",
    unhex=lambda digits: f"unhex({digits})",
)
DIALECTS: Final = {dialect.name: dialect for dialect in (DUCKDB, TRINO, SPARK)}
