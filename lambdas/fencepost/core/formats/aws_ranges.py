"""AWS ``ip-ranges.json``: ``{"syncToken", "createDate", "prefixes": [{"ip_prefix", "region",
"network_border_group", "service"}], "ipv6_prefixes": [{"ipv6_prefix", ...}]}``, recognised by its ``createDate``
and a prefix list. Columns: ``service``, ``region``, ``network_border_group``. AWS lists a prefix once for each
service it belongs to (``AMAZON`` and ``EC2``, say): the reader makes one range of it (``json_documents``).
``createDate`` (``2026-11-24-10-31-02``) is when AWS published the document, in UTC by its documentation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from fencepost.core.formats.base import Layout
from fencepost.core.formats.json_layouts import DocumentFormat, Entry, listed, stamp, text, value

COLUMNS: Final = ("service", "region", "network_border_group")
_LISTS: Final = (("prefixes", "ip_prefix"), ("ipv6_prefixes", "ipv6_prefix"))
_CREATED: Final = re.compile(r"(\d{4}-\d{2}-\d{2})-(\d{2})-(\d{2})-(\d{2})")


def is_aws(document: dict[str, Any]) -> bool:
    return "createDate" in document and any(key in document for key, _ in _LISTS)


def aws_entries(document: dict[str, Any]) -> Iterator[Entry]:
    for key, network_key in _LISTS:
        for index, item in enumerate(listed(document, key)):
            yield f"{key}[{index}]", value(item, network_key), tuple(text(value(item, column)) for column in COLUMNS)


def aws_published(document: dict[str, Any]) -> str | None:
    """``createDate`` as an instant in UTC (``2026-11-24T10:31:02Z``); None when it is not of AWS's form."""
    found = stamp(document, "createDate")
    match = _CREATED.fullmatch(found or "")
    return f"{match[1]}T{match[2]}:{match[3]}:{match[4]}Z" if match else None


FORMAT: Final = DocumentFormat(Layout.AWS, is_aws, aws_entries, COLUMNS, aws_published)
