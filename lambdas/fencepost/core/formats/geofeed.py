"""RFC 8805 geofeeds: ``prefix,alpha2code,region,city,postal_code`` a line, no header, ``#`` comments.

The prefix is an IPv4 or IPv6 network (an address alone is a /32 or /128); the other fields may be empty, and a line
may stop before its last fields (a missing field is empty). The columns are ``country`` (ISO 3166-1 alpha-2),
``region`` (ISO 3166-2, e.g. ``US-CA``), ``city`` and ``postal`` (deprecated by the RFC, kept when given). A file is
a geofeed when its first entry has four or five fields, a prefix first, a country of two letters or none and a
region of the ``XX-...`` form or none: nothing a column layout's first row would be.
"""

from __future__ import annotations

import csv
import re
from typing import Final

from fencepost.core.formats.base import Record
from fencepost.core.formats.cells import RowError, boundary, network

COLUMNS: Final = ("country", "region", "city", "postal")
DELIMITER: Final = ","
_COUNTRY: Final = re.compile(r"[A-Za-z]{2}")
_REGION: Final = re.compile(r"[A-Za-z]{2}-[A-Za-z0-9]{1,3}")


def _fields(line: str) -> list[str] | None:
    """The trimmed fields of an entry; None for a comment or a blank line."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    return [cell.strip() for cell in next(csv.reader([text]))]


def looks_like_geofeed(line: str) -> bool:
    """Whether a file's first line that is not a comment is a geofeed entry."""
    fields = _fields(line)
    if fields is None or len(fields) not in (4, 5):
        return False
    country, region = fields[1], fields[2]
    if (country and not _COUNTRY.fullmatch(country)) or (region and not _REGION.fullmatch(region)):
        return False
    try:
        _prefix(fields[0])
    except RowError:
        return False
    return True


def _prefix(cell: str) -> tuple[int, int, int]:
    """``(family, first, last)`` of a prefix: a CIDR network, or one address."""
    if "/" in cell:
        return network(cell)
    family, first = boundary(cell, "prefix")
    return family, first, first


def geofeed_record(line: str) -> Record | None:
    """The range of one entry, None for a comment or a blank line; raises ``RowError`` for an entry not usable."""
    fields = _fields(line)
    if fields is None:
        return None
    if len(fields) > 1 + len(COLUMNS):
        raise RowError(f"{len(fields)} fields: a geofeed entry has at most 5 (prefix,country,region,city,postal)")
    prefix, values = fields[0], (*fields[1:], *("",) * (1 + len(COLUMNS) - len(fields)))
    if values[0] and not _COUNTRY.fullmatch(values[0]):
        raise RowError(f"country {values[0][:20]!r} is not an ISO 3166-1 alpha-2 code")
    return (*_prefix(prefix), values)
