"""Range listing's request values, pure: the ``within`` network, the page ``limit`` and the paging cursor.

A cursor is an opaque token: base64url of a compact JSON array ``[dataset, version, family, after]`` and a
checksum of it. ``after`` is the start (hex) of the last piece a page returned in ``family``, or null when the
next page begins that family's part of ``within`` (including the piece that straddles its lower edge). The
checksum catches a token that was cut or edited by accident; it is no secret, so every field is also checked
strictly, against the request: a forged cursor can only ask for pieces of the request's dataset, inside the
request's ``within``, in a version the service still lists.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Final, TypeGuard

from fencepost.core.space.addresses import (
    BITS,
    FAMILIES,
    MAPPED_FIRST,
    TOP,
    V4,
    V6,
    AddressError,
    format_address,
    parse_boundary,
)
from fencepost.core.storage.keys import is_dataset_name

DEFAULT_LIMIT: Final = 100
MAX_LIMIT: Final = 1000
BETWEEN_TAG: Final = "b"  # the first field of a cursor of a diff between two versions (``http.version_diff_routes``)
MAX_CURSOR_CHARS: Final = 200  # a cursor with a 64-character name and an IPv6 start takes about 160
MAX_WITHIN_CHARS: Final = 49  # the longest address text and "/128"
MAX_VERSION: Final = (1 << 53) - 1

_CHECK_BYTES: Final = 6
_CURSOR: Final = re.compile(r"([A-Za-z0-9_-]+)\.([0-9a-f]{12})")
_HEX: Final = re.compile(r"[0-9a-f]{1,32}")
_PREFIX: Final = re.compile(r"0|[1-9][0-9]{0,2}")
_LIMIT: Final = re.compile(r"[1-9][0-9]{0,3}")


class ListingError(ValueError):
    """A ``within``, ``limit`` or ``cursor`` the service cannot use; the message says why."""


@dataclass(frozen=True, slots=True)
class Span:
    """The addresses ``first`` to ``last`` of one family."""

    family: int
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Within:
    """What a listing covers, in address order (IPv4 before IPv6); ``text`` is the canonical CIDR, or None: all."""

    text: str | None
    spans: tuple[Span, ...]

    def span(self, family: int) -> Span | None:
        return next((span for span in self.spans if span.family == family), None)


EVERYTHING: Final = Within(None, tuple(Span(family, 0, TOP[family]) for family in FAMILIES))


def parse_within(text: str | None) -> Within:
    """A CIDR network, strictly (no host bits, no leading zeros); IPv4-mapped IPv6 networks are listed as IPv4."""
    if text is None:
        return EVERYTHING
    shown = repr(text[:MAX_WITHIN_CHARS])
    address, slash, length = text.partition("/")
    if not slash or len(text) > MAX_WITHIN_CHARS or not _PREFIX.fullmatch(length):
        raise ListingError(f"invalid within {shown}: give a CIDR network such as 1.0.0.0/16 or 2001:db8::/32")
    if "%" in address:
        raise ListingError(f"invalid within {shown}: zone ids are not accepted")
    try:
        family, first = parse_boundary(address)
    except AddressError as error:
        raise ListingError(f"invalid within {shown}: {error.reason}") from None
    prefix = int(length)
    if prefix > BITS[family]:
        raise ListingError(f"invalid within {shown}: an IPv{family} prefix is at most /{BITS[family]}")
    size = 1 << (BITS[family] - prefix)
    if first % size:
        network = f"{format_address(family, first - first % size)}/{prefix}"
        raise ListingError(f"invalid within {shown}: host bits are set (the network is {network})")
    if family == V6 and prefix >= BITS[V6] - BITS[V4] and first >> BITS[V4] == MAPPED_FIRST >> BITS[V4]:
        family, first, prefix = V4, first & TOP[V4], prefix - (BITS[V6] - BITS[V4])
    canonical = f"{format_address(family, first)}/{prefix}"
    return Within(canonical, (Span(family, first, first + size - 1),))


def parse_limit(text: str | None) -> int:
    if text is None:
        return DEFAULT_LIMIT
    if not _LIMIT.fullmatch(text) or not 1 <= int(text) <= MAX_LIMIT:
        raise ListingError(f"invalid limit {text[:20]!r}: a whole number from 1 to {MAX_LIMIT}")
    return int(text)


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the next page begins: after the piece starting at ``after`` in ``family`` (None: the family's start)."""

    dataset: str
    version: int
    family: int
    after: int | None

    def token(self) -> str:
        after = None if self.after is None else f"{self.after:x}"
        return encode_token([self.dataset, self.version, self.family, after])


def encode_token(fields: list[object]) -> str:
    """An opaque cursor of ``fields`` (JSON values): base64url of their compact JSON, and its checksum."""
    payload = json.dumps(fields, separators=(",", ":")).encode()
    body = base64.urlsafe_b64encode(payload).rstrip(b"=").decode()
    return f"{body}.{_check(payload)}"


def decode_token(token: str, length: int) -> list[object] | None:
    """The ``length`` fields of an intact cursor; None when it was cut, edited or is not one."""
    match = _CURSOR.fullmatch(token) if len(token) <= MAX_CURSOR_CHARS else None
    if match is None:
        return None
    try:
        payload = base64.urlsafe_b64decode(match[1] + "=" * (-len(match[1]) % 4))
        fields = json.loads(payload)
    except (binascii.Error, ValueError):
        return None
    if _check(payload) != match[2] or not isinstance(fields, list) or len(fields) != length:
        return None
    return fields


def pin_digest(*parts: str) -> str:
    """What a pinned cursor holds of what it lists (a column and a value, a column and an order): enough to tell
    them apart, short whatever their size."""
    text = "\0".join(parts).encode()
    return hashlib.blake2b(text, digest_size=8, person=b"fencepost-pin").hexdigest()


def decode_pinned(token: str, tag: str, dataset: str, digest: str) -> tuple[int, int] | None:
    """The version and position of an intact cursor ``[tag, dataset, version, digest, position]`` that this request
    may use (same tag, dataset and digest of what it lists); None otherwise."""
    found = decode_pins(token, tag, dataset, digest, 2)
    return None if found is None else (found[0], found[1])


def decode_pins(token: str, tag: str, dataset: str, digest: str, count: int) -> tuple[int, ...] | None:
    """The ``count`` whole numbers of an intact cursor ``[tag, dataset, version, digest, number...]`` (the version
    from 1, the others, positions or more versions, from 0) when this request may use it (same tag, dataset and
    digest of what it lists); None otherwise."""
    fields = decode_token(token, 3 + count)
    if fields is None:
        return None
    held_tag, name, version, held, *more = fields
    if held_tag != tag or name != dataset or held != digest:
        return None
    numbers = [number for number in (version, *more) if _whole(number) and 0 <= number <= MAX_VERSION]
    if len(numbers) != count or numbers[0] < 1:
        return None
    return tuple(numbers)


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(payload: bytes) -> str:
    return hashlib.blake2b(payload, digest_size=_CHECK_BYTES, person=b"fencepost-cursor").hexdigest()


def parse_cursor(token: str, dataset: str, within: Within) -> Cursor:
    """The cursor ``token`` names, if it is intact and fits this request (same dataset, inside ``within``)."""
    refused = ListingError("invalid cursor: pass the 'next' of the previous page unchanged, with the same query")
    fields = decode_token(token, 4)
    if fields is None:
        raise refused
    name, version, family, after = fields
    if not isinstance(name, str) or not is_dataset_name(name):
        raise refused
    if name != dataset:
        raise ListingError(f"invalid cursor: it pages dataset {name!r}, not {dataset[:80]!r}")
    if type(version) is not int or not 1 <= version <= MAX_VERSION or family not in FAMILIES or type(family) is not int:
        raise refused
    span = within.span(family)
    if span is None:
        raise ListingError("invalid cursor: it pages another 'within' than this request's")
    if after is None:
        return Cursor(name, version, family, None)
    if not isinstance(after, str) or not _HEX.fullmatch(after) or int(after, 16) >= span.last:
        raise refused
    return Cursor(name, version, family, int(after, 16))
