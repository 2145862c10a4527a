"""Amazon S3 server access logs: one request a line, fields separated by spaces.

Source: "Amazon S3 server access log format" (Amazon S3 User Guide). The time is enclosed in brackets and holds a
space (``[06/Feb/2019:00:00:38 +0000]``); ``request_uri``, ``referer`` and ``user_agent`` are enclosed in double quotes;
any field may be ``-``. The docs say new fields may be added at the end of a line, and parsers should allow for them.

Choices:

- ``time`` is one field, its value without the brackets: ``06/Feb/2019:00:00:38 +0000``. Quoted fields lose their
  quotes.
- ``names`` runs through ``source_region``; a longer line keeps all its fields
  (``fencepost.core.logs.aws_layouts.field_names`` names the extra ones ``field_<n>``, 1-based), and a shorter one,
  written before the later fields existed, keeps the fields it has. A line that does not start with ``bucket_owner
  bucket [time] remote_ip`` is a ``LayoutError``.
- The docs describe no escape inside quotes, and a ``"`` a client sent has been seen written inside a quoted field as
  it came. Such a line is not refused (``fencepost.core.logs.quoted_fields.split_quoted``): it splits into more fields
  than it holds from ``request_uri`` on, while the fields before (the time, the address) stay right.
- ``remote_ip`` holds an IPv4 or IPv6 address as it stands; ``-`` gives no address.
- The time, ``%d/%b/%Y:%H:%M:%S %z``, is read with English month names whatever the locale.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from fencepost.core.logs.layout import LayoutError, LogLayout, quoted
from fencepost.core.logs.quoted_fields import split_quoted

NAMES = (
    "bucket_owner",
    "bucket",
    "time",
    "remote_ip",
    "requester",
    "request_id",
    "operation",
    "key",
    "request_uri",
    "http_status",
    "error_code",
    "bytes_sent",
    "object_size",
    "total_time",
    "turn_around_time",
    "referer",
    "user_agent",
    "version_id",
    "host_id",
    "signature_version",
    "cipher_suite",
    "authentication_type",
    "host_header",
    "tls_version",
    "access_point_arn",
    "acl_required",
    "source_region",
)
LEAST_FIELDS = NAMES.index("remote_ip") + 1
MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MONTHS = {name: n for n, name in enumerate(MONTH_NAMES, 1)}
_TIME = re.compile(r"([0-9]{2})/([A-Z][a-z]{2})/([0-9]{4}):([0-9]{2}):([0-9]{2}):([0-9]{2}) ([+-])([0-9]{2})([0-9]{2})")


def split(line: str) -> list[str]:
    head = line.split(" ", 4)
    if len(head) < LEAST_FIELDS + 1 or head[2][:1] != "[" or head[3][-1:] != "]":
        raise LayoutError("an S3 server access log line starts with bucket_owner bucket [time] remote_ip")
    rest = split_quoted(head[4])
    if not rest:
        raise LayoutError("an S3 server access log line with no remote_ip after its time")
    return [head[0], head[1], f"{head[2][1:]} {head[3][:-1]}", *rest]


def no_header(_line: str) -> None:
    """S3 server access log files hold no header or comment line."""


def remote(field: str) -> str:
    """``remote_ip`` as it stands; ``-`` gives ``""``."""
    return "" if field == "-" else field


def instant(texts: Sequence[str]) -> float:
    """Epoch seconds of ``time``: ``06/Feb/2019:00:00:38 +0000`` gives 1549411238.0."""
    match = _TIME.fullmatch(texts[0])
    if match and match[2] in MONTHS:
        day, month, year, hour, minute, second, sign, offset_hours, offset_minutes = match.groups()
        offset = int(offset_hours) * 3600 + int(offset_minutes) * 60
        try:
            moment = datetime(int(year), MONTHS[month], int(day), int(hour), int(minute), int(second), tzinfo=UTC)
            return moment.timestamp() + (offset if sign == "-" else -offset)
        except ValueError:
            pass
    raise LayoutError(f"S3 time {texts[0]!r} is not a time such as 06/Feb/2019:00:00:38 +0000")


LAYOUT = LogLayout(
    name="s3-access",
    names=NAMES,
    split=split,
    header=no_header,
    addresses={"remote_ip": remote},
    time=("time",),
    instant=instant,
    field=quoted,
)
