"""CloudFront standard logs (legacy): W3C extended log files, one viewer request a line, fields separated by tabs.

Source: "Standard logging reference" (Amazon CloudFront Developer Guide), its "Log file fields" section: 33 fields, and
two header lines, ``#Version: 1.0`` and ``#Fields: date time x-edge-location ...``. Field values are URL-encoded
(a space is ``%20``), so no value holds a tab; ``-`` means empty.

Choices:

- ``header`` gives the names a ``#Fields:`` line declares (older files declare fewer fields), ``()`` for any other
  ``#`` line, None for a data line; the reader names the lines that follow with the declared names and checks their
  count. ``names`` is the documented list, for files read without their header.
- Tabs at the end of a line are dropped: one of the documented example lines ends with a tab after its last field.
- A line too short to hold ``c-ip`` (the 5th field), or with no tab at all, is a ``LayoutError``.
- ``c-ip`` is the viewer's address (IPv4 or IPv6, as it stands; a proxy's when the viewer used one); ``x-forwarded-for``
  is the address of the viewer behind that proxy (the docs show one address; should it hold a comma-separated list,
  its first address is taken).
- ``date`` and ``time`` (UTC, when the response was finished; for WebSockets, when the connection closed) give the
  instant, in whole seconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from fencepost.core.logs.layout import LayoutError, LogLayout

NAMES = (
    "date",
    "time",
    "x-edge-location",
    "sc-bytes",
    "c-ip",
    "cs-method",
    "cs(Host)",
    "cs-uri-stem",
    "sc-status",
    "cs(Referer)",
    "cs(User-Agent)",
    "cs-uri-query",
    "cs(Cookie)",
    "x-edge-result-type",
    "x-edge-request-id",
    "x-host-header",
    "cs-protocol",
    "cs-bytes",
    "time-taken",
    "x-forwarded-for",
    "ssl-protocol",
    "ssl-cipher",
    "x-edge-response-result-type",
    "cs-protocol-version",
    "fle-status",
    "fle-encrypted-fields",
    "c-port",
    "time-to-first-byte",
    "x-edge-detailed-result-type",
    "sc-content-type",
    "sc-content-len",
    "sc-range-start",
    "sc-range-end",
)
LEAST_FIELDS = NAMES.index("c-ip") + 1
FIELDS_LINE = "#Fields:"
_DATE_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}")


def split(line: str) -> list[str]:
    fields = line.rstrip("\t").split("\t")
    if len(fields) < LEAST_FIELDS:
        raise LayoutError(
            f"a CloudFront log line needs at least {LEAST_FIELDS} tab-separated fields (through c-ip), this one has "
            f"{len(fields)}"
        )
    return fields


def field_at(lines: Sequence[str], at: int, count: int) -> list[str] | None:
    """Each line's field ``at``, the rest not split; None when a line has fewer than ``count`` fields before its
    last tabs."""
    wanted = max(count, LEAST_FIELDS)
    found = [
        fields[at] if len(fields := line.split("\t", wanted)) > wanted and fields[wanted].rstrip("\t") else None
        for line in lines
    ]
    return None if None in found else found  # type: ignore[return-value]


def heading(names: Sequence[str]) -> str:
    """The header lines of a file of fields ``names``."""
    return f"#Version: 1.0\n{FIELDS_LINE} {' '.join(names)}\n"


def header(line: str) -> tuple[str, ...] | None:
    """``#Fields: date time ...`` gives ``("date", "time", ...)``; another ``#`` line gives ``()``; data gives None."""
    if line[:1] != "#":
        return None
    if line.startswith(FIELDS_LINE):
        return tuple(line[len(FIELDS_LINE) :].split())
    return ()


def viewer(field: str) -> str:
    """``c-ip`` as it stands; ``-`` or nothing gives ``""``."""
    return "" if field == "-" else field


def forwarded(field: str) -> str:
    """The first address of ``x-forwarded-for``: ``192.0.2.183,%20198.51.100.7`` gives ``192.0.2.183``."""
    if field == "-":
        return ""
    return field.split(",", 1)[0].strip()


def instant(texts: Sequence[str]) -> float:
    """Epoch seconds of ``date`` and ``time``: ``2019-12-04`` and ``21:02:31`` give 1575493351.0."""
    text = f"{texts[0]}T{texts[1]}"
    if _DATE_TIME.fullmatch(text):
        try:
            return datetime.fromisoformat(f"{text}+00:00").timestamp()
        except ValueError:
            pass
    raise LayoutError(f"CloudFront date and time {texts[0]!r} {texts[1]!r} are not YYYY-MM-DD and HH:MM:SS")


LAYOUT = LogLayout(
    name="cloudfront",
    names=NAMES,
    split=split,
    header=header,
    addresses={"c-ip": viewer, "x-forwarded-for": forwarded},
    time=("date", "time"),
    instant=instant,
    field_at=field_at,
    separator="\t",
    heading=heading,
)
