"""Fastly's public IP list (``https://api.fastly.com/public-ip-list``): ``{"addresses": [...], "ipv6_addresses":
[...]}``, CIDR networks as strings, recognised by either key. No columns: a folder's ``constants`` add some. It
states no date of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from fencepost.core.formats.base import Layout
from fencepost.core.formats.json_layouts import DocumentFormat, Entry, listed

COLUMNS: Final[tuple[str, ...]] = ()
_LISTS: Final = ("addresses", "ipv6_addresses")


def is_fastly(document: dict[str, Any]) -> bool:
    return any(key in document for key in _LISTS)


def fastly_entries(document: dict[str, Any]) -> Iterator[Entry]:
    for key in _LISTS:
        for index, item in enumerate(listed(document, key)):
            yield f"{key}[{index}]", item, ()


def fastly_published(document: dict[str, Any]) -> None:  # noqa: ARG001 - the list states no date
    return None


FORMAT: Final = DocumentFormat(Layout.FASTLY, is_fastly, fastly_entries, COLUMNS, fastly_published)
