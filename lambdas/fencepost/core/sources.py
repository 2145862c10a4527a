"""What a version is built from: the data objects of its folder (keys and ETags) and the folder's settings.

Two builds from the same sources make the same version. A build whose sources are those of the live version, or
(after a rollback) those the rollback moved away from, is skipped: the fingerprint below is what is compared.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable

from fencepost.core import gates
from fencepost.core.folders import FolderSettings

ADDED_LATER = ("constants", "gap_when", "join", "locale", "max_unjoined_rows", *gates.NAMES)


def settings_digest(settings: FolderSettings) -> str:
    """A short digest of the folder's settings as parsed: a change of meaning changes it, reformatting does not."""
    fields = dataclasses.asdict(settings)
    fields.update(fields.pop("gates"))  # each gate a setting of its own, as in the document
    unset = dataclasses.asdict(FolderSettings())
    unset.update(unset.pop("gates"))
    for name in ADDED_LATER:  # unset (or at their defaults), they leave the digest as it was before they existed
        if fields[name] == unset[name]:
            fields.pop(name)
    canonical = json.dumps(fields, sort_keys=True, default=_canonical, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _canonical(value: object) -> object:
    """A value JSON cannot write, written the same way in every process (sets in order, not in hash order)."""
    if isinstance(value, set | frozenset):
        return sorted(str(element) for element in value)
    return str(value)


def fingerprint(objects: Iterable[tuple[str, str]], settings: str | None) -> str:
    """The sources of a version: its objects as ``(key, etag)`` pairs, in any order, and its settings digest
    (None for a version recorded before settings were part of its sources: it matches no folder)."""
    lines = sorted(f"{key}\t{etag}" for key, etag in objects)
    lines.append(f"settings\t{settings if settings is not None else '?'}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:32]
