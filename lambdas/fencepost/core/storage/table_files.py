"""The table file a build keeps (``core.storage.objects.table_key``): a version's pieces and what each answers, in
one object, so that a whole file of addresses can be joined with the version without reading the table.

Text, gzip members (``core.storage.members``), in this order:

1. a JSON header: ``format``, the ``columns``, the version's ``aliases`` (``core.space.aliases``), and for each
   family (``"4"``, ``"6"``) its count of ``pieces`` and of ``rows``;
2. each family's pieces, IPv4 then IPv6, in address order, one fixed-width line each:
   ``<start>\\t<end>\\t<row>\\n``, the bounds in lowercase hex of 8 (IPv4) or 32 (IPv6) digits, the row in 8;
3. each family's rows (the ranges the pieces were cut from, only those a piece answers from), one line each:
   ``<range start>\\t<range end>\\t<values as a JSON array>\\n``, the bounds as in the pieces.

Fixed-width pieces can be read without a loop per line (``fencepost.enrichment.table``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Final

from fencepost.core.space.addresses import FAMILIES, V4, V6
from fencepost.core.versions.build import FamilyRanges, Pieces

TABLE_FORMAT: Final = "fencepost-table/1"
DIGITS: Final = {V4: 8, V6: 32}  # hex digits of an address, by family
ROW_DIGITS: Final = 8


def hex_of(family: int, value: int) -> str:
    return format(value, f"0{DIGITS[family]}x")


def table_lines(
    families: Mapping[int, FamilyRanges],
    pieces: Mapping[int, Pieces],
    columns: Sequence[str],
    aliases: Sequence[str] = (),
) -> Iterator[str]:
    """The table file's lines for a build's flattened pieces (``FamilyRanges.pieces``)."""
    rows: dict[int, dict[int, int]] = {}  # by family: a source row's index in the file, in order of first use
    for family in FAMILIES:
        used: dict[int, int] = {}
        for source in pieces[family].sources if family in pieces else ():
            used.setdefault(source, len(used))
        rows[family] = used
    counts = {
        str(family): {"pieces": len(pieces[family]) if family in pieces else 0, "rows": len(rows[family])}
        for family in FAMILIES
    }
    header = {"format": TABLE_FORMAT, "columns": list(columns), "aliases": list(aliases), "families": counts}
    yield json.dumps(header, separators=(",", ":")) + "\n"
    for family in FAMILIES:
        if family not in pieces:
            continue
        used = rows[family]
        width = DIGITS[family]
        for start, end, source in zip(pieces[family].starts, pieces[family].ends, pieces[family].sources, strict=True):
            yield f"{start:0{width}x}\t{end:0{width}x}\t{used[source]:0{ROW_DIGITS}x}\n"
    for family in FAMILIES:
        ranges = families[family] if family in families else FamilyRanges(family)
        width = DIGITS[family]
        for source in rows[family]:
            values = json.dumps(list(ranges.values[source]), ensure_ascii=False, separators=(",", ":"))
            yield f"{ranges.starts[source]:0{width}x}\t{ranges.ends[source]:0{width}x}\t{values}\n"
