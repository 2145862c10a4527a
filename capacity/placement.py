"""Where an item lives: its position in a table's key space, and the units a request consumes.

DynamoDB places a partition key value by a hash it does not publish: the model uses the first 8 bytes of the MD5
of the value's bytes, which spreads values as uniformly as any good hash (the model's results depend on the hash
only through which values share a partition; ``SALT`` changes that draw). Within one value, items are ordered by
sort key; a partition is a range of positions ``(hash, sort key)``, so a split can fall between two items of one
partition key value ([study-1], [docs-splits] in ``facts``).
"""

from __future__ import annotations

import functools
import hashlib
import math
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from capacity.facts import EVENTUAL_READ_COST, READ_UNIT_BYTES, WRITE_UNIT_BYTES

HASH_SPACE: Final = 1 << 64
SALT: Final = b""

Position = tuple[int, bytes]  # (hash of the partition key value, its sort key as order-preserving bytes)
LOWEST_SORT: Final = b""


@functools.lru_cache(maxsize=1 << 16)  # a load has few partition key values, each written many times
def key_hash(value: bytes) -> int:
    return int.from_bytes(hashlib.md5(SALT + value, usedforsecurity=False).digest()[:8], "big")


def position(partition_value: Any, sort_value: Any = None) -> Position:
    """The position of an item whose key attributes are ``partition_value`` and ``sort_value``, each in DynamoDB's
    attribute-value form (``{"S": "..."}``, ``{"N": "..."}``, ``{"B": b"..."}``); no sort key: the lowest."""
    return key_hash(_value_bytes(partition_value)), LOWEST_SORT if sort_value is None else sort_bytes(sort_value)


def _value_bytes(value: Any) -> bytes:
    kind, content = next(iter(value.items()))
    if kind == "B":
        return content if isinstance(content, bytes) else str(content).encode()
    return f"{kind}:{content}".encode()


def sort_bytes(value: Any) -> bytes:
    """A sort key as bytes that order as DynamoDB orders the key: numbers by value, strings and binary by bytes."""
    kind, content = next(iter(value.items()))
    if kind == "N":
        return _number_bytes(str(content))
    if kind == "B":
        return b"\x01" + (content if isinstance(content, bytes) else str(content).encode())
    return b"\x01" + str(content).encode()


def _number_bytes(text: str) -> bytes:
    """Order-preserving bytes of a decimal number: sign, exponent, then digits (negative ones complemented)."""
    if text.isascii() and text.isdigit():  # a whole number, 0 or more (every address): the same bytes, sooner
        whole = text.lstrip("0")
        if not whole:
            return b"\x80"
        return b"\x81" + (len(whole) - 1 + 32_768).to_bytes(2, "big") + whole.rstrip("0").encode()
    try:
        number = Decimal(text)
    except InvalidOperation:
        return b"\x80"
    if number.is_zero():
        return b"\x80"
    digits = "".join(map(str, number.as_tuple().digits)).rstrip("0")
    positive = (number.copy_abs().adjusted() + 32_768).to_bytes(2, "big") + digits.encode()
    if number > 0:
        return b"\x81" + positive
    return b"\x7f" + bytes(255 - byte for byte in positive) + b"\xff"


def write_units(item_bytes: int) -> float:
    """A write of an item of this size: one unit per KB started, at least one ([docs-partitions])."""
    return float(max(1, math.ceil(item_bytes / WRITE_UNIT_BYTES)))


def read_units(total_bytes: int, *, eventual: bool) -> float:
    """A read returning this many bytes: one unit per 4 KB started, at least one; half when eventually consistent."""
    units = float(max(1, math.ceil(total_bytes / READ_UNIT_BYTES)))
    return units * EVENTUAL_READ_COST if eventual else units
