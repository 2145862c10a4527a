"""What a version is built from: the data objects of its folder (keys and ETags) and the folder's settings.

Two builds from the same sources make the same version (the settings' digest:
``core.folders.settings_file.settings_digest``). A build whose sources are those of the live version, or (after a
rollback) those the rollback moved away from, is skipped: the fingerprint below is what is compared."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def fingerprint(objects: Iterable[tuple[str, str]], settings: str | None) -> str:
    """The sources of a version: its objects as ``(key, etag)`` pairs, in any order, and its settings digest
    (None for a version recorded before settings were part of its sources: it matches no folder)."""
    lines = sorted(f"{key}\t{etag}" for key, etag in objects)
    lines.append(f"settings\t{settings if settings is not None else '?'}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:32]
