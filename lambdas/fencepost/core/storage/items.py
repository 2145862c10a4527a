"""Range items in DynamoDB's attribute-value form, built by the loader and read back by the lookup.

Attributes besides the keys: ``e`` the piece's last address; ``rs``/``re`` the original range's start and end,
only when the piece is not the whole range; ``g`` the last address of the gap after the piece, only when one
follows it (``fencepost.core.space.gaps``); ``d`` the metadata values as a list in column order. Addresses are
kept as canonical text, so the table reads well in a console and answers need no reformatting.

Every item the loader writes is sized here first (``check_item``): DynamoDB refuses items over 400 KB. The records
that list a version's objects or columns hold them within budgets that leave room for the rest of the record.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from fencepost.core.space.addresses import format_address, parse_boundary
from fencepost.core.storage.keys import partition_base, partition_of, range_pk, sort_key

Item = dict[str, Any]

MAX_ITEM_BYTES = 400 * 1024  # DynamoDB's item size limit
ITEM_OVERHEAD_BYTES = 1024  # keys, addresses and list overhead of one range item take well under 1 KB
# What the records that carry them (dataset record, build record, version header) may spend on a version's list of
# objects and on its column names; a dataset record's problems take at most RECORD_PROBLEM_BYTES
# (core.formats.problems).
OBJECT_LIST_BYTES = 256 * 1024
COLUMN_NAMES_BYTES = 64 * 1024


class ItemTooLarge(ValueError):
    """An item that DynamoDB would refuse: writing it again cannot help."""


class Listed(Protocol):
    """An object as a version lists it (``fencepost.model.ObjectRef``)."""

    @property
    def key(self) -> str: ...
    @property
    def etag(self) -> str: ...
    @property
    def size(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Hit:
    """The piece found by a lookup, and the range it was cut from, with their addresses as stored (canonical text)."""

    start: int
    end: int
    values: list[str]
    start_text: str
    end_text: str
    range_texts: tuple[str, str] | None = None  # None: the piece is the whole range
    gap_end: int | None = None  # the last address of the gap after the piece; None: none follows, or not stored

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
    gap_end: int | None = None,
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
    if gap_end is not None:
        item["g"] = {"S": format_address(family, gap_end)}
    return item


def _address(text: str) -> int:
    # Not parse_address: a stored IPv6 boundary inside ::ffff:0:0/96 must stay IPv6.
    return parse_boundary(text)[1]


def read_hit(family: int, partition: int, item: Item) -> Hit:
    start = partition_base(family, partition) + int(item["SK"]["N"])
    end_text = item["e"]["S"]
    values = [value["S"] for value in item["d"]["L"]]
    span = (item["rs"]["S"], item["re"]["S"]) if "rs" in item else None
    gap_end = _address(item["g"]["S"]) if "g" in item else None
    return Hit(start, _address(end_text), values, format_address(family, start), end_text, span, gap_end)


def check_item(item: Item) -> None:
    """Raise ``ItemTooLarge`` for an item over DynamoDB's limit, naming it by its key."""
    size = item_bytes(item)
    if size > MAX_ITEM_BYTES:
        key = f"{item.get('PK', {}).get('S', '?')} / {item.get('SK', {}).get('N', '?')}"
        raise ItemTooLarge(f"the item {key} takes {size:,} bytes; a DynamoDB item holds at most {MAX_ITEM_BYTES:,}")


def object_list_bytes(objects: Iterable[Listed]) -> int:
    """What a list of objects takes in an item (each a map of key, etag and size)."""
    return _value_bytes(
        {"L": [{"M": {"key": {"S": o.key}, "etag": {"S": o.etag}, "size": {"N": str(o.size)}}} for o in objects]}
    )


def metadata_bytes(values: Iterable[str]) -> int:
    """What a range's metadata takes in its item (the ``d`` list)."""
    return 1 + _value_bytes({"L": [{"S": value} for value in values]})


def oversized_metadata(values: Sequence[str]) -> int | None:
    """The bytes a range's item would take with this metadata, when that is more than an item may hold (None when
    it fits). A UTF-8 character is at most 4 bytes: the exact count is made only when that quick bound is over."""
    if 4 * sum(map(len, values)) + len(values) + 4 + ITEM_OVERHEAD_BYTES <= MAX_ITEM_BYTES:
        return None
    size = metadata_bytes(values) + ITEM_OVERHEAD_BYTES
    return size if size > MAX_ITEM_BYTES else None


def column_names_bytes(columns: Iterable[str]) -> int:
    """What a version's column names take in its header."""
    return _value_bytes({"L": [{"S": name} for name in columns]})


def item_bytes(item: Item) -> int:
    """An item's size as DynamoDB counts it: attribute names plus values (numbers about one byte per two digits)."""
    return sum(len(name.encode()) + _value_bytes(value) for name, value in item.items())


def _value_bytes(value: dict[str, Any]) -> int:  # noqa: PLR0911 - one branch per kind of value
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
    if kind in ("SS", "NS", "BS"):
        return sum(_value_bytes({kind[0]: element}) for element in content)
    if kind == "B":
        return len(content)
    return 1  # BOOL, NULL


@dataclass(frozen=True, slots=True)
class Slice:
    """Pieces of one partition, in order; ``more``: the partition holds further pieces in the asked span."""

    hits: list[Hit]
    more: bool
    read_units: float  # what DynamoDB reported the Queries cost
