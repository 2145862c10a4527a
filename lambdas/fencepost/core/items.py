"""Range items in DynamoDB's attribute-value form, built by the loader and read back by the lookup.

Attributes besides the keys: ``e`` the piece's last address; ``rs``/``re`` the original range's start and end,
only when the piece is not the whole range; ``d`` the metadata values as a list in column order. Addresses are
kept as canonical text, so the table reads well in a console and answers need no reformatting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fencepost.core.addresses import format_address, parse_boundary
from fencepost.core.keys import partition_base, partition_of, range_pk, sort_key

Item = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Hit:
    """The piece found by a lookup, and the range it was cut from, with their addresses as stored (canonical text)."""

    start: int
    end: int
    values: list[str]
    start_text: str
    end_text: str
    range_texts: tuple[str, str] | None = None  # None: the piece is the whole range

    @property
    def range_start(self) -> int:
        return parse_boundary(self.range_texts[0])[1] if self.range_texts else self.start

    @property
    def range_end(self) -> int:
        return parse_boundary(self.range_texts[1])[1] if self.range_texts else self.end


def range_item(
    dataset: str,
    version: int,
    family: int,
    *,
    piece: tuple[int, int],
    source: tuple[int, int],
    values: Sequence[str],
) -> Item:
    start, end = piece
    item: Item = {
        "PK": {"S": range_pk(dataset, version, family, partition_of(family, start))},
        "SK": {"N": str(sort_key(family, start))},
        "e": {"S": format_address(family, end)},
        "d": {"L": [{"S": value} for value in values]},
    }
    if source != piece:
        item["rs"] = {"S": format_address(family, source[0])}
        item["re"] = {"S": format_address(family, source[1])}
    return item


def _address(text: str) -> int:
    # Not parse_address: a stored IPv6 boundary inside ::ffff:0:0/96 must stay IPv6.
    return parse_boundary(text)[1]


def read_hit(family: int, partition: int, item: Item) -> Hit:
    start = partition_base(family, partition) + int(item["SK"]["N"])
    end_text = item["e"]["S"]
    values = [value["S"] for value in item["d"]["L"]]
    span = (item["rs"]["S"], item["re"]["S"]) if "rs" in item else None
    return Hit(start, _address(end_text), values, format_address(family, start), end_text, span)


def item_bytes(item: Item) -> int:
    """An item's size as DynamoDB counts it: attribute names plus values (numbers about one byte per two digits)."""
    return sum(len(name.encode()) + _value_bytes(value) for name, value in item.items())


def _value_bytes(value: dict[str, Any]) -> int:
    kind, content = next(iter(value.items()))
    if kind == "S":
        return len(content.encode())
    if kind == "N":
        digits = len(content.lstrip("-").replace(".", "").strip("0")) or 1
        return (digits + 1) // 2 + 1
    if kind == "L":
        return 3 + sum(1 + _value_bytes(element) for element in content)
    if kind == "M":
        return 3 + sum(1 + len(key.encode()) + _value_bytes(element) for key, element in content.items())
    return 1  # BOOL, NULL
