"""CAIDA's RouteViews prefix-to-AS files (``routeviews-rv2-<date>-1200.pfx2as.gz``): ``prefix<TAB>length<TAB>origins``.

The origins field is one AS number, several joined with ``_`` (a prefix announced by several origins) or with
``,`` (an AS set), or both. Every origin is kept: the one column, ``origins``, holds the field as CAIDA writes it
(``13335``, ``4847_58851``, ``64496,64497``), each number checked. A file is of this format when its first entry
has three tab-separated fields: an address, a prefix length and origins.
"""

from __future__ import annotations

import re
from typing import Final

from fencepost.core.formats.base import Record
from fencepost.core.formats.cells import RowError, network
from fencepost.core.space.addresses import AddressError, parse_boundary

COLUMNS: Final = ("origins",)
DELIMITER: Final = "\t"
MAX_ASN: Final = (1 << 32) - 1
_ORIGINS: Final = re.compile(r"[0-9]{1,10}(?:[_,][0-9]{1,10})*")


def _fields(line: str) -> list[str] | None:
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    return [field.strip() for field in text.split("\t")]


def looks_like_pfx2as(line: str) -> bool:
    """Whether a file's first line that is not a comment is an entry: address, prefix length, origins."""
    fields = _fields(line)
    if fields is None or len(fields) != 3 or not (fields[1].isascii() and fields[1].isdigit()):
        return False
    if _ORIGINS.fullmatch(fields[2]) is None:
        return False
    try:
        parse_boundary(fields[0])
    except AddressError:
        return False
    return True


def pfx2as_record(line: str) -> Record | None:
    """The network of one entry and its origins; None for a blank line; raises ``RowError`` otherwise."""
    fields = _fields(line)
    if fields is None:
        return None
    if len(fields) != 3:
        raise RowError(f"{len(fields)} tab-separated fields: an entry has 3 (prefix, length, origins)")
    prefix, length, origins = fields
    if _ORIGINS.fullmatch(origins) is None:
        raise RowError(f"origins {origins[:60]!r} are not AS numbers joined by '_' or ','")
    if any(int(number) > MAX_ASN for number in re.split("[_,]", origins)):
        raise RowError(f"origins {origins[:60]!r} hold a number above {MAX_ASN}, the largest AS number")
    family, first, last = network(f"{prefix}/{length}")
    return family, first, last, (origins,)
