"""RIR delegated statistics files (``delegated-ripencc-extended-latest`` and the like), read line by line.

Records are ``registry|cc|type|start|value|date|status[|opaque-id[|extensions...]]``: an ``ipv4`` record's value is
a count of addresses (not always a power of two), an ``ipv6`` record's a prefix length. The version line, the
summary lines, ``#`` comments and ``asn`` records are skipped; what is kept of a record is its ``registry``,
``cc``, ``date``, ``status`` and ``opaque_id`` (empty in files without one; extension fields are left out). A keyed
folder reads the ``asn`` records of the same files (``core.keyed.rir_keys``), through ``record_fields``.
"""

from __future__ import annotations

import re
from typing import Final

from fencepost.core.formats.base import Record
from fencepost.core.formats.cells import RowError, boundary, is_integer, network, whole
from fencepost.core.space.addresses import TOP, V4, V6

COLUMNS: Final = ("registry", "cc", "date", "status", "opaque_id")
DELIMITER: Final = "|"
_TYPES: Final = frozenset({"ipv4", "ipv6", "asn"})
_VERSION: Final = re.compile(r"[0-9]+(?:\.[0-9]+)*")  # "2", "2.3": no registry is named by digits


def _is_version(fields: list[str]) -> bool:
    return _VERSION.fullmatch(fields[0]) is not None


def _is_summary(fields: list[str]) -> bool:
    return len(fields) == 6 and fields[5] == "summary"


def version_enddate(line: str) -> str | None:
    """The ``enddate`` a version line states (``version|registry|serial|records|startdate|enddate|UTCoffset``): the
    day the file's data runs to, as written (``YYYYMMDD``); None for a line that is no version line."""
    fields = [field.strip() for field in line.strip().split(DELIMITER)]
    return fields[5] if len(fields) >= 7 and _is_version(fields) and fields[1] else None


def looks_like_rir(line: str) -> bool:
    """Whether a file's first line that is not a comment is a delegated file's version line or one of its
    records or summary lines (``|``-separated, no comma or tab)."""
    if "," in line or "\t" in line:
        return False
    fields = [field.strip() for field in line.strip().split(DELIMITER)]
    if len(fields) >= 7 and _is_version(fields) and fields[1]:
        return True
    return len(fields) >= 6 and fields[2] in _TYPES and bool(fields[0]) and (_is_summary(fields) or len(fields) >= 7)


def record_fields(line: str) -> list[str] | None:
    """A record's fields (``registry|cc|type|start|value|date|status[|opaque-id[|extensions...]]``), each stripped;
    None for a line that holds none (blank, a ``#`` comment, the version line, a summary line). Raises ``RowError``
    for a line of fewer than a record's 7 fields, or of a type other than ``ipv4``, ``ipv6`` and ``asn``. A keyed
    folder reads its ``asn`` records through it too (``core.keyed.rir_keys``)."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    fields = [field.strip() for field in text.split(DELIMITER)]
    if _is_version(fields) or _is_summary(fields):
        return None
    if len(fields) < 7:
        raise RowError(f"{len(fields)} fields where a record has at least 7 (registry|cc|type|start|value|date|status)")
    if fields[2] not in _TYPES:
        raise RowError(f"type {fields[2][:20]!r} is not ipv4, ipv6 or asn")
    return fields


def rir_record(line: str) -> Record | None:
    """The range of one line, None for a line that is skipped; raises ``RowError`` for a record not usable."""
    fields = record_fields(line)
    if fields is None or fields[2] == "asn":
        return None
    registry, cc, kind, start, value, date, status = fields[:7]
    values = (registry, cc, date, status, fields[7] if len(fields) > 7 else "")
    if kind == "ipv4":
        family, first = boundary(start, "start")
        if family != V4:
            raise RowError(f"start {start[:60]!r} of an ipv4 record is not an IPv4 address")
        if not is_integer(value):
            raise RowError(f"count {value[:40]!r} of an ipv4 record is not a number of addresses")
        count = whole(value, "count")
        if count == 0:
            raise RowError("count 0 of an ipv4 record: it holds no addresses")
        if first + count - 1 > TOP[V4]:
            raise RowError(f"{count} addresses from {start} run past 255.255.255.255")
        return V4, first, first + count - 1, values
    family, first, last = network(f"{start}/{value}")
    if family != V6:
        raise RowError(f"start {start[:60]!r} of an ipv6 record is not an IPv6 address")
    return V6, first, last, values
