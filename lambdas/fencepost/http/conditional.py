"""Conditional GET lookups: the validators of an answer (``ETag``, ``Last-Modified``) and ``If-None-Match``.

A lookup's answer is fixed by the URL, the live version of every dataset it names and, for ``ip=me``, the
caller's address. The entity tag is a short hash of exactly those, so every container computes the same tag for
the same answer without reading it. The tag is weak (``W/"..."``): it identifies the data, not the bytes. A
deploy that adds a field to answers, or a front end that compresses them, keeps the tag, which a strong tag must
not; and ``If-None-Match`` compares weakly anyway (RFC 9110, 13.1.2). Nothing here reads or writes anything.

``If-Modified-Since`` is not honoured: a version switch in the same second as an earlier one, or a rollback to
a version the client has seen, would make a date comparison wrong; the tag is exact.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from email.utils import formatdate

__all__ = ["ANY", "Validators", "entity_tag", "header", "http_date", "none_match", "parse_if_none_match"]

ANY = "*"  # If-None-Match: * (any current representation)
TAG_LENGTH = 20  # hex digits of SHA-256 kept: 80 bits


def entity_tag(live: Sequence[tuple[str, int | None]], address: str | None = None) -> str:
    """The weak entity tag of an answer from these ``(dataset, version)`` pairs, in request order (version None:
    the dataset is not loaded), and (for ``ip=me``, where the URL does not name it) the address looked up, as
    formatted in answers."""
    canonical = ",".join(f"{name}@{'-' if version is None else version}" for name, version in live)
    if address is not None:
        canonical += f"|{address}"
    return f'W/"{hashlib.sha256(canonical.encode()).hexdigest()[:TAG_LENGTH]}"'


def http_date(epoch: float) -> str:
    """An HTTP-date (IMF-fixdate, RFC 9110 5.6.7): ``Sat, 21 Nov 2026 10:00:00 GMT``."""
    return formatdate(int(epoch), usegmt=True)


def _opaque(tag: str) -> str:
    """The tag without its weakness indicator: weak comparison compares only this."""
    return tag[2:] if tag.startswith("W/") else tag


def parse_if_none_match(value: str | None) -> tuple[str, ...] | None:
    """The entity tags of an ``If-None-Match`` value, as sent (weak ones keep ``W/``); ``("*",)`` for ``*``.

    None when there is no header, or nothing in it is an entity tag: the condition is then ignored, as RFC 9110
    says for a field value that is not valid. Several header lines arrive joined by commas; a comma inside a
    quoted tag is part of the tag.
    """
    if value is None:
        return None
    text = value.strip()
    if text == ANY:
        return (ANY,)
    tags: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t,":
            i += 1
        if i >= n:
            break
        start = i
        if text.startswith("W/", i):
            i += 2
        if i < n and text[i] == '"':
            end = text.find('"', i + 1)
            if end < 0:
                return None  # an unterminated tag: the whole field is invalid
            tags.append(text[start : end + 1])
            i = end + 1
        else:
            return None  # not an entity tag (an unquoted word, or * among tags)
    return tuple(tags) or None


def none_match(value: str | None, current: str) -> bool:
    """Whether ``If-None-Match: value`` is false for the current tag: a 304 is due.

    True when the field is ``*`` (the answer exists: every lookup that reaches the condition has one) or lists a
    tag weakly equal to ``current``.
    """
    tags = parse_if_none_match(value)
    if tags is None:
        return False
    if tags == (ANY,):
        return True
    wanted = _opaque(current)
    return any(_opaque(tag) == wanted for tag in tags)


def header(headers: Mapping[str, str] | None, name: str) -> str | None:
    """A request header by case-insensitive name (API Gateway sends them lowercased; tests and fronts may not)."""
    if not headers:
        return None
    value = headers.get(name)
    if value is not None:
        return value
    lowered = name.lower()
    return next((v for k, v in headers.items() if k.lower() == lowered), None)


@dataclass(frozen=True, slots=True)
class Validators:
    """The validators of one GET lookup's answer, found or NOT_FOUND."""

    etag: str
    last_modified: str | None  # None when no dataset listed knows when it went live

    @classmethod
    def of(cls, live: Sequence[tuple[str, int | None, float | None]], address: str | None = None) -> Validators:
        """From ``(dataset, version, live_since)`` of every dataset listed, in request order, and the address
        for ``ip=me``. ``Last-Modified`` is the newest ``live_since``: it never goes backwards, even on rollback.

        Nearly every lookup of a container asks for the same few: they are kept (the last 256), so a hash and a
        date are not made again for each."""
        return _validators(tuple(live), address)

    def headers(self) -> dict[str, str]:
        out = {"ETag": self.etag}
        if self.last_modified is not None:
            out["Last-Modified"] = self.last_modified
        return out

    def not_modified_by(self, if_none_match: str | None) -> bool:
        return none_match(if_none_match, self.etag)


@functools.lru_cache(maxsize=256)
def _validators(live: tuple[tuple[str, int | None, float | None], ...], address: str | None) -> Validators:
    since: Iterable[float] = (when for _, _, when in live if when is not None)
    newest = max(since, default=None)
    tag = entity_tag([(name, version) for name, version, _ in live], address)
    return Validators(tag, None if newest is None else http_date(newest))
