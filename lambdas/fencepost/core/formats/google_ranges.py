"""Google Cloud's ``cloud.json`` (and ``goog.json``, of the same layout): ``{"syncToken", "creationTime",
"prefixes": [{"ipv4Prefix" or "ipv6Prefix", "service", "scope"}]}``, recognised by its ``creationTime`` and
``prefixes``. Columns: ``service``, ``scope`` (``goog.json`` has neither: they are empty). ``creationTime``
(``2021-07-14T10:01:33.087737``) is when Google made the document, a local time without an offset (that file's
``syncToken``, milliseconds since 1970, is 17:01:33 UTC: Pacific time): it dates the data by the day it names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from fencepost.core.formats.base import Layout
from fencepost.core.formats.json_layouts import DocumentFormat, Entry, listed, stamp, text, value

COLUMNS: Final = ("service", "scope")


def is_google(document: dict[str, Any]) -> bool:
    return "creationTime" in document and "prefixes" in document


def google_entries(document: dict[str, Any]) -> Iterator[Entry]:
    for index, item in enumerate(listed(document, "prefixes")):
        found = value(item, "ipv4Prefix")
        yield (
            f"prefixes[{index}]",
            found if found is not None else value(item, "ipv6Prefix"),
            tuple(text(value(item, column)) for column in COLUMNS),
        )


def google_published(document: dict[str, Any]) -> str | None:
    return stamp(document, "creationTime")


FORMAT: Final = DocumentFormat(Layout.GOOGLE, is_google, google_entries, COLUMNS, google_published)
