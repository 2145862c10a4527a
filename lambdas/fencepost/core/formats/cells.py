"""One cell of a range file read as what it holds: an address, an integer address or a CIDR network.

A cell that cannot be read so raises ``RowError``, a problem of its row (never anything else: Python's own limits,
such as ``int()`` of thousands of digits, are kept out of reach).
"""

from __future__ import annotations

from fencepost.core.space.addresses import BITS, TOP, V6, AddressError, parse_boundary


class RowError(ValueError):
    """A cell, or its row, that cannot be used; the message says why."""


def is_integer(cell: str) -> bool:
    return cell.isascii() and cell.isdigit()


MAX_DIGITS = len(str(TOP[V6]))  # 39: no address needs more (Python refuses int() of over 4,300 digits anyway)


def whole(cell: str, what: str) -> int:
    """An integer cell (ASCII digits), refused as a row problem when it is longer than any address."""
    digits = cell.lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:
        raise RowError(f"{what} {cell[:40]}... has {len(digits)} digits: larger than any IPv6 address")
    return int(digits)


def looks_like_data(cell: str) -> bool:
    """Whether a first cell is an address, an integer address or a network (so the row is not a header)."""
    if is_integer(cell):
        return True
    try:
        parse_boundary(cell.split("/", 1)[0])
    except AddressError:
        return False
    return True


def boundary(cell: str, what: str) -> tuple[int, int]:
    try:
        return parse_boundary(cell)
    except AddressError as error:
        raise RowError(f"{what} {cell[:60]!r} is {error.reason}") from None


def network(cell: str) -> tuple[int, int, int]:
    """``(family, first, last)`` of a CIDR network; host bits must be clear."""
    address, slash, prefix = cell.partition("/")
    if not slash or not (prefix.isascii() and prefix.isdigit()):
        raise RowError(f"network {cell[:60]!r} is not in CIDR form (address/prefix)")
    family, first = boundary(address, "network")
    if len(prefix) > 3:  # (and never int() of thousands of digits)
        raise RowError(f"network {cell[:60]!r} has a prefix longer than {BITS[family]} bits")
    length = int(prefix)
    if length > BITS[family]:
        raise RowError(f"network {cell[:60]!r} has a prefix longer than {BITS[family]} bits")
    host = (1 << (BITS[family] - length)) - 1
    if first & host:
        raise RowError(f"network {cell[:60]!r} has host bits set")
    return family, first, first | host
