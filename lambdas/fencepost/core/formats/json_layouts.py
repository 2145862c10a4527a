"""What the JSON documents providers publish their addresses in share: a document format (its layout, how it is
recognised, its entries and columns) and the reading of a document's lists and values.

An entry is where it is in the document (``prefixes[3]``), its network as found (a string in CIDR form, or
anything else, which the reader reports) and its column values as text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from fencepost.core.formats.base import FileError, Layout

Entry = tuple[str, object, tuple[str, ...]]


class DocumentFormat(NamedTuple):
    layout: Layout
    is_one: Callable[[dict[str, Any]], bool]  # whether a document (its top-level object) is of this format
    entries: Callable[[dict[str, Any]], Iterator[Entry]]  # raises ``FileError`` for a list that is not one
    columns: tuple[str, ...]
    published: Callable[[dict[str, Any]], str | None]  # when the document says it was made (ISO 8601), if it does


def listed(document: object, key: str, where: str = "") -> list[Any]:
    """The list a document's object holds under ``key`` (none when the key is absent or the object is none)."""
    if not isinstance(document, dict) or document.get(key) is None:
        return []
    found = document[key]
    if not isinstance(found, list):
        raise FileError(None, f"{where}{key} is not a list")
    return found


def value(item: object, key: str) -> object:
    """What an entry holds under ``key``; None when the entry is not an object or has no such key."""
    return item.get(key) if isinstance(item, dict) else None


def stamp(document: dict[str, Any], key: str) -> str | None:
    """A document's timestamp under ``key`` as written (ISO 8601), or None when it holds no text there."""
    found = document.get(key)
    return found.strip() if isinstance(found, str) and found.strip() else None


def text(found: object) -> str:
    """A value as a column's text: a string as it is, a list of strings joined by spaces, nothing as empty."""
    if found is None:
        return ""
    if isinstance(found, str):
        return found
    if isinstance(found, list):
        return " ".join(text(part) for part in found)
    return json.dumps(found)
