"""When a source is checked, and what its last check left: the validators of each download (so the next request can
be conditional), the objects each wrote, and the counts a person reads in ``GET /datasets/{name}``.

A source is due when its interval has passed since the last check, at once when its ``_source.json`` changed, and
never while paused. Each file's download is kept under a digest of everything the source says of that file, so a
file whose address, name or members changed is fetched afresh. After a failed check
the next comes sooner than the interval, doubling from the shortest interval allowed, so a brief outage of the
publisher costs minutes of staleness, not a day, and a long one is not hammered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from fencepost.core.sources.spec import Source
from fencepost.core.versions.history import format_instant

MAX_REASON: Final = 1000  # characters of a reason kept: the publisher's words in it are cut shorter still (200)


def short(reason: str) -> str:
    """A reason as it is stored and served: at most ``MAX_REASON`` characters (a source with thousands of unknown
    settings, or any text grown past it, is still recorded, and the round goes on)."""
    return reason if len(reason) <= MAX_REASON else reason[: MAX_REASON - 3] + "..."


class Outcome(StrEnum):
    CHANGED = "CHANGED"  # a new release was written into the folder
    UNCHANGED = "UNCHANGED"  # the publisher has nothing new: nothing written, nothing built
    FAILED = "FAILED"  # the fetch failed or the release was refused: the folder is untouched
    INVALID = "INVALID"  # _source.json cannot be used: the folder is untouched


@dataclass(frozen=True, slots=True)
class Download:
    """What one file's last good download left: its validators, its checksum, and the objects it wrote."""

    etag: str | None = None
    last_modified: str | None = None
    sha256: str = ""
    objects: tuple[tuple[str, str], ...] = ()  # (key, the bucket's ETag) of each object written from it


@dataclass(frozen=True, slots=True)
class SourceState:
    digest: str = ""  # the source the downloads were made for
    first_checked: int | None = None  # instants in ms
    last_checked: int | None = None
    last_changed: int | None = None
    last_ok: int | None = None  # the last check that found the folder current (changed or unchanged)
    next_check: int = 0
    outcome: str = ""
    reason: str = ""
    failures: int = 0  # failed checks in a row
    checks: int = 0
    unchanged: int = 0  # checks that found nothing new
    downloads: Mapping[str, Download] = field(default_factory=dict)  # by file (a digest of its address)
    url: str = ""  # the source's address as anyone may see it (spec.public_url)
    every: int = 0  # seconds
    paused: bool = False

    def due(self, source: Source, now: int) -> bool:
        """Whether a check is due (a paused source never is)."""
        if source.paused:
            return False
        return source.digest != self.digest or now >= self.next_check

    def checked(
        self,
        source: Source,
        outcome: Outcome,
        now: int,
        *,
        least_every: int,
        reason: str = "",
        downloads: Mapping[str, Download] | None = None,
    ) -> SourceState:
        """The state after a check ended with ``outcome`` at ``now`` (ms)."""
        failed = outcome in (Outcome.FAILED, Outcome.INVALID)
        failures = self.failures + 1 if failed else 0
        wait = source.every if not failed else min(source.every, least_every * 2 ** min(failures - 1, 20))
        return SourceState(
            digest=source.digest,
            first_checked=self.first_checked if self.first_checked is not None else now,
            last_checked=now,
            last_changed=now if outcome is Outcome.CHANGED else self.last_changed,
            last_ok=self.last_ok if failed else now,
            next_check=now + wait * 1000,
            outcome=outcome.value,
            reason=short(reason),
            failures=failures,
            checks=self.checks + 1,
            unchanged=self.unchanged + (outcome is Outcome.UNCHANGED),
            downloads=dict(downloads if downloads is not None else self.downloads),
            url=source.shown_url(),
            every=source.every,
        )

    def paused_by(self, source: Source) -> SourceState:
        """This state once ``source`` (paused) was read: said once, checked no more until it is resumed."""
        return dataclasses.replace(self, digest=source.digest, paused=True, url=source.shown_url(), every=source.every)

    def to_api(self) -> dict[str, Any]:
        """What ``GET /datasets/{name}`` shows of the source (``source``): an unusable ``_source.json`` (INVALID) is
        checked again when it changes, not at a time."""
        invalid = self.outcome == Outcome.INVALID
        return {
            "url": self.url or None,
            "every_seconds": self.every,
            "paused": self.paused,
            "outcome": self.outcome or None,
            "reason": self.reason or None,
            "last_checked": _shown(self.last_checked),
            "last_changed": _shown(self.last_changed),
            "next_check": None if self.paused or self.last_checked is None or invalid else _shown(self.next_check),
            "checks": self.checks,
            "unchanged": self.unchanged,
            "failures_in_a_row": self.failures,
        }

    def stale_after(self, every: int, now: int) -> bool:
        """No check has found the folder current for three intervals of ``every`` seconds since the last good one
        (or since the first check, for a source that never had one): what the alarm watches."""
        since = self.last_ok if self.last_ok is not None else self.first_checked
        return since is not None and every > 0 and now - since > 3 * every * 1000

    def to_json(self) -> dict[str, Any]:
        document = dataclasses.asdict(self)
        document["downloads"] = {
            url: {**dataclasses.asdict(download), "objects": [list(pair) for pair in download.objects]}
            for url, download in self.downloads.items()
        }
        return document

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> SourceState:
        known = {name: document[name] for name in cls.__dataclass_fields__ if name in document}
        known["downloads"] = {
            url: Download(
                etag=entry.get("etag"),
                last_modified=entry.get("last_modified"),
                sha256=entry.get("sha256", ""),
                objects=tuple((str(key), str(etag)) for key, etag in entry.get("objects", [])),
            )
            for url, entry in (document.get("downloads") or {}).items()
        }
        return cls(**known)


def _shown(instant: int | None) -> str | None:
    return None if instant is None else format_instant(instant / 1000)
