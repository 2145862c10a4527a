"""``GET /lookup``'s request, read once at the edge: the event's query and headers become one typed ``GetLookup``.

Everything below the route takes the typed request; nothing else reads the query string. The checks run in the
order the API documents its errors: the address first (``MISSING_IP``, ``INVALID_IP``), then ``fields``, ``mode``,
``dataset`` and ``as_of``/``version``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fencepost.core.space.addresses import AddressError, format_address, parse_address
from fencepost.core.space.forwarded import Trust, client_address
from fencepost.errors import InvalidIp, MissingIp
from fencepost.http.conditional import header
from fencepost.http.lookup_params import parse_dataset_text, parse_mode
from fencepost.reading.answers import Mode
from fencepost.reading.fields import Selection, parse_text
from fencepost.reading.past import Past, parse_past

Address = tuple[int, int]  # family, value
NO_TRUST = Trust()  # ip=me is the connection's address


def parse_ip(text: str, source_ip: str) -> Address:
    """An address as sent (``me``: the caller's own), or ``InvalidIp`` saying why not."""
    if text == "me":
        text = source_ip
    try:
        return parse_address(text)
    except AddressError as error:
        shown = text if len(text) <= 64 else text[:64] + "..."
        raise InvalidIp(f"{shown!r} is not a valid IP address: {error.reason}") from None


def source_ip(event: Mapping[str, Any]) -> str:
    """The connection's address, as the front (API Gateway, or the function URL) saw it."""
    return str(((event.get("requestContext") or {}).get("http") or {}).get("sourceIp", ""))


def caller_ip(event: Mapping[str, Any], trust: Trust) -> str:
    """The caller's own address (``ip=me``): the connection's, or the client's as the trusted proxies in front of it
    name it (``TRUSTED_PROXIES``, ``fencepost.core.space.forwarded``)."""
    headers = event.get("headers")
    forwarded, viewer = header(headers, "x-forwarded-for"), header(headers, "cloudfront-viewer-address")
    return client_address(trust, source_ip(event), forwarded, viewer)


@dataclass(frozen=True, slots=True)
class GetLookup:
    """One ``GET /lookup``: the address, the datasets and how their answers combine, the fields kept, the instant
    or version asked for, and the client's cached entity tags."""

    family: int
    address: int
    me: str | None  # ``ip=me``: the caller's address as answers show it (the URL does not name it)
    names: tuple[str, ...]
    mode: Mode
    selection: Selection | None
    past: Past | None
    if_none_match: str | None

    @property
    def strict(self) -> bool:
        """Whether an unknown dataset fails the whole request (one dataset, or an overlay)."""
        return self.mode is Mode.FIRST or len(self.names) == 1


def get_lookup(event: Mapping[str, Any], default_dataset: str, trust: Trust = NO_TRUST) -> GetLookup:
    """The request of a ``GET /lookup`` event, checked, or the first error in the documented order."""
    query: Mapping[str, str] = event.get("queryStringParameters") or {}
    ip = query.get("ip")
    if not ip:
        raise MissingIp("give the address to look up as ?ip=<address> (or ?ip=me)")
    tags = header(event.get("headers"), "if-none-match")
    family, address = parse_ip(ip, caller_ip(event, trust) if ip == "me" else "")
    selection = None if query.get("fields") is None else parse_text(query["fields"])
    mode = parse_mode(query.get("mode"))
    text = query.get("dataset")
    names = (default_dataset,) if text is None else parse_dataset_text(text) or (text,)
    past = parse_past(query.get("as_of"), query.get("version"), several=len(names) > 1, now=time.time())
    me = format_address(family, address) if ip == "me" else None
    return GetLookup(family, address, me, names, mode, selection, past, tags)
