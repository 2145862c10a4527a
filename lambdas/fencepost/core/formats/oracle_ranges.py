"""Oracle Cloud's ``public_ip_ranges.json``: ``{"last_updated_timestamp", "regions": [{"region", "cidrs": [{"cidr",
"tags": [...]}]}]}``, recognised by its ``last_updated_timestamp`` and ``regions``. Columns: ``region``, ``tags``
(the tags joined by spaces: ``OSN OBJECT_STORAGE``). ``last_updated_timestamp`` (``2019-11-18T19:55:47.204985``)
is the file's creation time, ISO 8601 without an offset by Oracle's documentation: it dates the data by its day.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from fencepost.core.formats.base import Layout
from fencepost.core.formats.json_layouts import DocumentFormat, Entry, listed, stamp, text, value

COLUMNS: Final = ("region", "tags")


def is_oracle(document: dict[str, Any]) -> bool:
    return "last_updated_timestamp" in document and "regions" in document


def oracle_entries(document: dict[str, Any]) -> Iterator[Entry]:
    for number, region in enumerate(listed(document, "regions")):
        name = text(value(region, "region"))
        for index, item in enumerate(listed(region, "cidrs", f"regions[{number}].")):
            yield f"regions[{number}].cidrs[{index}]", value(item, "cidr"), (name, text(value(item, "tags")))


def oracle_published(document: dict[str, Any]) -> str | None:
    return stamp(document, "last_updated_timestamp")


FORMAT: Final = DocumentFormat(Layout.ORACLE, is_oracle, oracle_entries, COLUMNS, oracle_published)
