"""The data's own date: when the publisher says the data of a version was made, as opposed to when the version was
built (its header's ``created_at``) or when a file happened to be copied (a file's modification time, which is
never used: a copy, a sync or an unpacking changes it, and it says nothing of the data).

Each object of a version may state its date five ways, the publisher's statement in the data itself first:

- ``mmdb``: a MaxMind DB file's ``build_epoch`` (its metadata), when the publisher built the database;
- ``rir``: the ``enddate`` of an RIR delegated statistics file's version line, the day its data runs to (a day);
- ``document``: when a cloud's JSON document says it was made (``core.formats.json_documents``): AWS's
  ``createDate`` (UTC by its documentation), Google's ``creationTime``, Oracle's ``last_updated_timestamp``; an
  instant when the text names its offset, else the day it names (Google and Oracle write local times without one);
- ``last-modified``: the ``Last-Modified`` header the publisher sent with a release a folder's source fetched
  (``core.sources``), recorded in the release's manifest;
- ``name``: a date in the object's key, as publishers name their releases (``GeoLite2-City_20261124``,
  ``delegated-apnic-20261124``, ``ip2asn-v6-20251028.tsv.gz``, ``_history/2026-11-24/``): ``YYYYMMDD``,
  ``YYYY-MM-DD`` or ``YYYY_MM_DD`` standing alone (not inside a longer run of digits), a real day from
  ``EARLIEST_YEAR`` on. The last such date of the key is the object's (a release's own name comes after its folder).

A statement of a day later than the day after the build's (in UTC: a registry ahead of UTC writes its day early)
is a wrong clock, not the data's date (a build epoch or a Last-Modified in the future, a name naming a day to come):
it is passed over for the object's next statement (``latest``, ``latest_day``).

A version is as old as its oldest dated object: its date is the oldest of its objects' dates (each object's best
statement), with that statement's source and object. Objects that state no date are left out; a version none of
whose objects states one has no date (None).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Final

MMDB: Final = "mmdb"
RIR: Final = "rir"
DOCUMENT: Final = "document"
LAST_MODIFIED: Final = "last-modified"
NAME: Final = "name"
SOURCES: Final = (
    MMDB,
    RIR,
    DOCUMENT,
    LAST_MODIFIED,
    NAME,
)  # in the order they are preferred (the data's own statement first)

EARLIEST_YEAR: Final = 1990  # before any public IP data set: an 8-digit number naming an earlier "day" is no date
LATEST_YEAR: Final = 2199
_IN_NAME: Final = re.compile(r"(?<!\d)(\d{4})([-_]?)(\d{2})\2(\d{2})(?!\d)")


@dataclass(frozen=True, slots=True)
class DataDate:
    """The date a version's data was made, as its publisher states it."""

    date: (
        str  # ISO 8601, UTC: an instant (``2026-11-24T10:31:02Z``) from mmdb and last-modified (and a document
        # that names its offset), a day from rir and name (and a document that names none)
    )
    source: str  # how it is known: one of ``SOURCES``
    object: str  # the key of the object that states it


def from_epoch(epoch: object) -> str | None:
    """A MaxMind DB ``build_epoch`` (seconds since 1970) as an instant; None for a value that is not one."""
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch <= 0:
        return None
    try:
        moment = datetime.fromtimestamp(epoch, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return _instant(moment) if EARLIEST_YEAR <= moment.year <= LATEST_YEAR else None


def from_http_date(text: object) -> str | None:
    """An HTTP date (``Tue, 24 Nov 2026 10:31:02 GMT``, RFC 9110) as an instant; None for text that is not one."""
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # an HTTP date is in GMT, whether it says so or not
        moment = moment.replace(tzinfo=UTC)
    return _instant(moment) if EARLIEST_YEAR <= moment.year <= LATEST_YEAR else None


def from_day(text: object) -> str | None:
    """A day written ``YYYYMMDD`` (an RIR file's ``enddate``) as ``YYYY-MM-DD``; None for text that is not one."""
    if not isinstance(text, str) or len(text) != 8 or not (text.isascii() and text.isdigit()):
        return None
    return from_name(text)


def from_document(text: object) -> str | None:
    """A JSON document's own timestamp (ISO 8601, as ``core.formats.json_documents`` gives it) as an instant when it
    names its offset, else as the day it names; None for text that is not one."""
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
        return None
    return _instant(moment) if moment.tzinfo is not None else moment.date().isoformat()


def from_name(key: str) -> str | None:
    """The last date standing alone in ``key`` (``YYYY-MM-DD``), or None when it holds none."""
    found = None
    for match in _IN_NAME.finditer(key):
        year, _, month, day = match.groups()
        try:
            shown = date(int(year), int(month), int(day))
        except ValueError:
            continue
        if EARLIEST_YEAR <= shown.year <= LATEST_YEAR:
            found = shown.isoformat()
    return found


def latest_day(built_at: str) -> str | None:
    """The last day a statement of a version built at ``built_at`` (RFC 3339) may name: the day after its build's, in
    UTC (a day written ahead of UTC); None for text that is no instant."""
    try:
        moment = datetime.fromisoformat(built_at)
    except (TypeError, ValueError):
        return None
    moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return (moment.astimezone(UTC) + timedelta(days=1)).date().isoformat()


def object_date(
    key: str,
    *,
    epoch: object = None,
    last_modified: object = None,
    enddate: object = None,
    published: object = None,
    latest: str | None = None,
) -> DataDate | None:
    """The best date one object states: its MaxMind DB build epoch, its RIR version line's ``enddate`` or its JSON
    document's timestamp (``published``), else its release's Last-Modified, else a date in its key; a statement of a
    day after ``latest`` (``latest_day``) is passed over."""
    stated = (
        (MMDB, from_epoch(epoch)),
        (RIR, from_day(enddate)),
        (DOCUMENT, from_document(published)),
        (LAST_MODIFIED, from_http_date(last_modified)),
        (NAME, from_name(key)),
    )
    for source, text in stated:
        if text is not None and (latest is None or text[:10] <= latest):
            return DataDate(text, source, key)
    return None


def version_date(
    keys: Iterable[str],
    *,
    epochs: Mapping[str, object] | None = None,
    last_modified: Mapping[str, object] | None = None,
    enddates: Mapping[str, object] | None = None,
    published: Mapping[str, object] | None = None,
    latest: str | None = None,
) -> DataDate | None:
    """The date of a version built from the objects ``keys``: the oldest of their own dates (``object_date``, none
    after the day ``latest``), or None when none states one. ``epochs``, ``last_modified``, ``enddates`` and
    ``published`` are by object key."""
    epochs, last_modified, enddates, published = epochs or {}, last_modified or {}, enddates or {}, published or {}
    dated = [
        object_date(
            key,
            epoch=epochs.get(key),
            last_modified=last_modified.get(key),
            enddate=enddates.get(key),
            published=published.get(key),
            latest=latest,
        )
        for key in keys
    ]
    found = [stated for stated in dated if stated is not None]
    return min(found, key=lambda stated: (stated.date, SOURCES.index(stated.source), stated.object), default=None)


def _instant(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
