"""VPC flow logs as text: one flow a line, fields separated by spaces, in the default format or a custom one.

Source: "Flow log records" (Amazon VPC User Guide): the default format is the version 2 fields, in order, and a custom
format is any of the available fields in any order; a field that does not apply is ``-`` (``NODATA`` and ``SKIPDATA``
records leave the addresses, ports and counts at ``-``). Log files delivered to Amazon S3 start with a line naming
their fields, such as ``version account-id interface-id srcaddr ...``.

Choices:

- ``header`` recognises that line, and so any custom format: a line whose first field is ``version`` (in data, the
  version is a number), or whose every field is one of the names the docs list for versions 2 to 5 (a custom format
  need not start with ``version``). It gives the names; the reader names the following lines with them and checks
  their count. ``names`` is the default format, for lines read without a header.
- Runs of spaces count as one separator (one documented example holds two spaces in a row); an empty line is a
  ``LayoutError``.
- ``srcaddr`` (the default) and ``dstaddr`` hold an IPv4 or IPv6 address as it stands; ``-`` gives no address.
- ``start`` (Unix seconds: the first packet of the flow within its aggregation interval) gives the instant.
"""

from __future__ import annotations

from collections.abc import Sequence

from fencepost.core.logs.layout import LayoutError, LogLayout

NAMES = (
    "version",
    "account-id",
    "interface-id",
    "srcaddr",
    "dstaddr",
    "srcport",
    "dstport",
    "protocol",
    "packets",
    "bytes",
    "start",
    "end",
    "action",
    "log-status",
)
# The fields the docs list for versions 3 to 5, after the version 2 fields above.
LATER_NAMES = (
    "vpc-id",
    "subnet-id",
    "instance-id",
    "tcp-flags",
    "type",
    "pkt-srcaddr",
    "pkt-dstaddr",
    "region",
    "az-id",
    "sublocation-type",
    "sublocation-id",
    "pkt-src-aws-service",
    "pkt-dst-aws-service",
    "flow-direction",
    "traffic-path",
)
KNOWN_NAMES = frozenset(NAMES + LATER_NAMES)


def split(line: str) -> list[str]:
    fields = line.split()
    if not fields:
        raise LayoutError("an empty VPC flow log line")
    return fields


def field_at(lines: Sequence[str], at: int, count: int) -> list[str] | None:
    """Each line's field ``at``, the rest not split; None when a line has fewer than ``count`` fields."""
    wanted = max(count, 1)
    found = [fields[at] if len(fields := line.split(None, wanted)) >= wanted else None for line in lines]
    return None if None in found else found  # type: ignore[return-value]


def heading(names: Sequence[str]) -> str:
    """The header line of a file of fields ``names``, as S3 delivery writes it."""
    return " ".join(names) + "\n"


def header(line: str) -> tuple[str, ...] | None:
    """The names a header line declares (``version account-id ...``); None for a record."""
    if not "a" <= line[:1] <= "z":
        return None
    fields = line.split()
    if fields[0] == "version" or all(field in KNOWN_NAMES for field in fields):
        return tuple(fields)
    return None


def address(field: str) -> str:
    """``srcaddr`` or ``dstaddr`` as it stands; ``-`` gives ``""``."""
    return "" if field == "-" else field


def instant(texts: Sequence[str]) -> float:
    """Epoch seconds of ``start``: ``1418530010`` gives 1418530010.0."""
    text = texts[0]
    if not (text.isascii() and text.isdigit()):
        raise LayoutError(f"VPC flow log start {text!r} is not a time in Unix seconds")
    return float(text)


LAYOUT = LogLayout(
    name="vpc-flow",
    names=NAMES,
    split=split,
    header=header,
    addresses={"srcaddr": address, "dstaddr": address},
    time=("start",),
    instant=instant,
    field_at=field_at,
    heading=heading,
)
