"""Application Load Balancer access logs: one line a request (a WebSocket connection: one line when it closes).

Source: "Access logs for your Application Load Balancer" (User Guide for Application Load Balancers), its "Access log
entries" section. Fields are separated by spaces; ``request``, ``user_agent`` and most fields after ``target_group_arn``
are enclosed in double quotes and may hold spaces. Quoted fields lose their quotes.

Choices:

- ``names`` runs through ``request_transform_status``. The docs add new fields at the end and ask parsers to ignore
  those they do not expect, so a longer line keeps all its fields (``fencepost.core.logs.aws_layouts.field_names``
  names the extra ones ``field_<n>``, 1-based), and a shorter line, written before ``classification`` or
  ``conn_trace_id`` existed, keeps the fields it has (the names past its end are absent). A line too short to hold
  ``client:port`` is a ``LayoutError``.
- The docs describe no escape inside quotes (a client's ``"`` has been seen written as ``\\x22``, which stays as
  written); fields are split by ``fencepost.core.logs.quoted_fields.split_quoted``, which refuses no quote: every
  field up to ``request`` is unquoted, so the address and the time stay right whatever a client sent.
- An address field is ``ip:port`` and the address is what comes before the last ``:``: the docs show no IPv6 example,
  and IPv6 clients are written without brackets (``2001:db8::7:2817``); a bracketed ``[2001:db8::7]:2817`` is read too.
  ``-`` (no target: a Lambda target, a request blocked by AWS WAF, a request never dispatched) gives no address.
- ``time`` (ISO 8601 in UTC with microseconds, ``2018-07-02T22:23:00.186641Z``) is when the load balancer sent its
  response (for WebSockets, when the connection closed).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from fencepost.core.logs.layout import LayoutError, LogLayout, quoted
from fencepost.core.logs.quoted_fields import split_quoted

NAMES = (
    "type",
    "time",
    "elb",
    "client:port",
    "target:port",
    "request_processing_time",
    "target_processing_time",
    "response_processing_time",
    "elb_status_code",
    "target_status_code",
    "received_bytes",
    "sent_bytes",
    "request",
    "user_agent",
    "ssl_cipher",
    "ssl_protocol",
    "target_group_arn",
    "trace_id",
    "domain_name",
    "chosen_cert_arn",
    "matched_rule_priority",
    "request_creation_time",
    "actions_executed",
    "redirect_url",
    "error_reason",
    "target:port_list",
    "target_status_code_list",
    "classification",
    "classification_reason",
    "conn_trace_id",
    "transformed_host",
    "transformed_uri",
    "request_transform_status",
)
LEAST_FIELDS = NAMES.index("client:port") + 1


def split(line: str) -> list[str]:
    fields = split_quoted(line)
    if len(fields) < LEAST_FIELDS:
        raise LayoutError(
            f"an ALB access log line needs at least {LEAST_FIELDS} fields (through client:port), this one has "
            f"{len(fields)}"
        )
    return fields


def field_at(lines: Sequence[str], at: int, count: int) -> list[str] | None:
    """Each line's field ``at``, from what stands before its first quote (no quoted field comes before
    ``request``): the rest is not split. None when a line has fewer than ``count`` fields there."""
    wanted = max(count, LEAST_FIELDS)
    found = [
        fields[at] if len(fields := line.partition('"')[0].split(None, wanted)) >= wanted else None for line in lines
    ]
    return None if None in found else found  # type: ignore[return-value]


def no_header(_line: str) -> None:
    """ALB log files hold no header or comment line."""


def address(field: str) -> str:
    """The address of an ``ip:port`` field: ``10.0.0.1:80`` gives ``10.0.0.1``, ``2001:db8::7:2817`` gives
    ``2001:db8::7``, ``[2001:db8::7]:2817`` gives ``2001:db8::7``; ``-`` or nothing gives ``""``."""
    if field in ("-", ""):
        return ""
    host, colon, port = field.rpartition(":")
    if not colon or not host or not (port.isascii() and port.isdigit()):
        raise LayoutError(f"{field!r} is not an ip:port field")
    if host[0] == "[" and host[-1] == "]":
        return host[1:-1]
    return host


def instant(texts: Sequence[str]) -> float:
    """Epoch seconds of ``time``: ``2018-07-02T22:23:00.186641Z`` gives 1530570180.186641."""
    text = texts[0]
    try:
        if text[-1:] == "Z":
            return datetime.fromisoformat(text).timestamp()
    except ValueError:
        pass
    raise LayoutError(f"ALB time {text!r} is not an ISO 8601 UTC time such as 2018-07-02T22:23:00.186641Z")


LAYOUT = LogLayout(
    name="alb",
    names=NAMES,
    split=split,
    header=no_header,
    addresses={"client:port": address, "target:port": address},
    time=("time",),
    instant=instant,
    field_at=field_at,
    field=quoted,
)
