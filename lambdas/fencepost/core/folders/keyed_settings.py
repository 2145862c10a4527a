"""The settings of a folder that concern keyed datasets (``core.keyed``): ``key`` and ``key_form`` make the folder a
keyed dataset (a table of keys, not ranges); ``keyed_joins`` joins keyed datasets into a range dataset's answers.

``"key": "asn"`` names the key column of the folder's CSV files (an AS-names list is keyed by ``asn`` whatever its
layout); ``"key_form": "asn"`` compares keys as AS numbers (``AS13335`` and ``13335`` are one key), ``"text"`` (the
default) as they are. What only ranges have means nothing for keys, and is refused on a keyed folder: ``REFUSED``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fencepost.core.keyed.join_spec import KeyedJoin, parse_keyed_joins
from fencepost.core.keyed.keyed_table import KEY_FORMS, MAX_KEY_CHARS, KeyedError, check_form
from fencepost.core.storage.objects import FolderError

NAMES: Final = ("key", "key_form", "keyed_joins")
# Settings of ranges: none applies to a table of keys (the reason each is refused, said once)
REFUSED: Final = (
    *("index", "exports", "sinks", "join", "gap_when", "merge_neighbours", "keyed_joins", "numeric"),
    *("mmdb_profile_columns", "constants", "columns"),  # (a keyed table is read by its header, its columns as named)
)


def parse_keyed(document: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The keyed settings a settings document gives, checked (``FolderError`` naming ``where``); absent ones left
    out, so their defaults apply."""
    found: dict[str, Any] = {}
    key = document.get("key")
    if key is not None:
        if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY_CHARS:
            raise FolderError(f'{where}: key must name the key column, e.g. "asn"')
        found["key"] = key.strip()
        refused = [name for name in REFUSED if document.get(name) not in (None, False)]
        refused += ["header"] if document.get("header") is False else []  # a table without one: ranges only
        if refused:
            raise FolderError(
                f"{where}: a keyed folder (key {found['key']!r}) holds a table of keys, not ranges: {refused} apply "
                "to ranges only; remove them"
            )
    form = document.get("key_form")
    if form is not None:
        if key is None:
            raise FolderError(f'{where}: key_form applies to a keyed folder only: name its key column with "key"')
        try:
            found["key_form"] = check_form(form)
        except KeyedError as error:
            raise FolderError(f"{where}: {error}") from None
    if document.get("keyed_joins") is not None:
        found["keyed_joins"] = _joins(document["keyed_joins"], where)
    return found


def _joins(value: Any, where: str) -> tuple[KeyedJoin, ...]:
    try:
        return parse_keyed_joins(value)
    except KeyedError as error:
        raise FolderError(f"{where}: {error}") from None


__all__ = ["KEY_FORMS", "NAMES", "REFUSED", "parse_keyed"]
