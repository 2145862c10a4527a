"""Spamhaus DROP as JSON lines (``drop_v4.json``, ``drop_v6.json``; the text files are to be retired): one network a
line, ``{"cidr": "1.10.16.0/20", "sblid": "SBL256894", "rir": "apnic"}``, and a closing metadata line
``{"type": "metadata", "timestamp": ..., "records": ...}`` (https://www.spamhaus.com/faqs/drop). Columns: ``sblid``,
``rir``. The metadata line is skipped; any other line that is not such an object is an invalid row.
"""

from __future__ import annotations

import json
from typing import Any, Final

from fencepost.core.formats.base import Record
from fencepost.core.formats.cells import RowError, network

COLUMNS: Final = ("sblid", "rir")
DELIMITER: Final = ""  # none: each line is a JSON object


def _object(line: str) -> dict[str, Any] | None:
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        found = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def looks_like_drop_json(line: str) -> bool:
    """A first line that is a JSON object naming a ``cidr``."""
    found = _object(line)
    return found is not None and isinstance(found.get("cidr"), str)


def drop_json_record(line: str) -> Record | None:
    """The network of one line; None for the metadata line or a blank one; raises ``RowError`` otherwise."""
    if not line.strip():
        return None
    found = _object(line)
    if found is None:
        raise RowError("not a JSON object: each line of a DROP JSON file is one")
    if found.get("type") == "metadata":
        return None
    cidr = found.get("cidr")
    if not isinstance(cidr, str):
        raise RowError("the object has no cidr")
    family, first, last = network(cidr)
    return family, first, last, tuple(str(found.get(column) or "") for column in COLUMNS)
