"""The client's own address behind proxies (``ip=me``): which hops in front of the function are trusted, and the
address they vouch for.

The chain is ``X-Forwarded-For`` read left to right, then the connection's address. API Gateway and function URLs
append the connection's address to the header themselves, so when the header's last entry is the connection's
address it is counted once. Each entry was written by the hop to its right; the connection's address by the front.

- no trust (the default): the connection's address; the header is never read;
- ``hops=N``: the N rightmost hops of the chain (the connection's address counting as the first) are trusted
  proxies, and the client is the entry N places left of the connection's address. CloudFront in front of a
  function URL, ``hops=1``: the chain ``203.0.113.9, 198.51.100.7, 130.176.1.2`` (the client forged the first
  entry, CloudFront wrote the second, the function URL the third) answers ``198.51.100.7``;
- ``cloudfront``: CloudFront-Viewer-Address's address; ``cloudfront=<CIDRs>`` only when the connection comes from
  one of those networks;
- ``networks=<CIDRs>``: from the right, hops inside the networks are skipped; the first address outside them is the
  client.

Only the rightmost ``entries`` of the header are read (it may be long). An entry that is not an address where the
client should be answers the connection's address, never an entry further left.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

FORMS = "none, hops=N, cloudfront, cloudfront=<CIDR,...> or networks=<CIDR,...>"


@dataclass(frozen=True, slots=True)
class Trust:
    """The hops trusted to name the client: ``kind`` is ``none``, ``hops``, ``cloudfront`` or ``networks``."""

    kind: str = "none"
    hops: int = 0
    networks: tuple[Network, ...] = ()
    entries: int = 20  # X-Forwarded-For entries read, from the right


def parse_trust(text: str, entries: int = 20) -> Trust:
    """The setting's text as a ``Trust``, or ``ValueError`` saying which forms it takes."""
    kind, _, value = text.strip().partition("=")
    kind = kind.strip().lower()
    if kind in ("", "none") and not value:
        return Trust(entries=entries)
    if kind == "hops":
        if not value.strip().isdecimal() or not 1 <= int(value) <= entries:
            raise ValueError(f"hops must be a whole number from 1 to {entries}, not {value!r}")
        return Trust("hops", hops=int(value), entries=entries)
    if kind == "cloudfront":
        return Trust("cloudfront", networks=_networks(value) if value else (), entries=entries)
    if kind == "networks":
        return Trust("networks", networks=_networks(value), entries=entries)
    raise ValueError(f"{text!r} is not one of: {FORMS}")


def _networks(text: str) -> tuple[Network, ...]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise ValueError("name at least one network (CIDR, comma separated)")
    try:
        return tuple(ipaddress.ip_network(part, strict=False) for part in parts)
    except ValueError:
        raise ValueError(f"{text!r} is not a comma-separated list of networks (CIDR)") from None


def client_address(trust: Trust, connection: str, forwarded: str | None, viewer: str | None) -> str:
    """The client's address as ``trust`` allows: from the chain of hops (``forwarded``: X-Forwarded-For, repeated
    headers joined with commas) or CloudFront's ``viewer`` address (``ip:port``); else the ``connection``'s."""
    if trust.kind == "cloudfront":
        if trust.networks and not _inside(_address(connection), trust.networks):
            return connection
        found = _address(viewer or "", port=True)
        return connection if found is None else str(found)
    if trust.kind == "none" or not forwarded:
        return connection
    chain = _chain(forwarded, connection, trust.entries)
    if trust.kind == "hops":
        entry = chain[max(len(chain) - 1 - trust.hops, 0)]
    else:
        entry = _first_untrusted(chain, trust.networks)
    found = _address(entry)
    return connection if found is None else str(found)


def _chain(forwarded: str, connection: str, entries: int) -> list[str]:
    """The rightmost ``entries`` of the header, then the connection's address (once)."""
    chain = [entry.strip() for entry in forwarded.rsplit(",", entries)[-entries:]]
    last = _address(chain[-1])
    if last is None or last != _address(connection):
        chain.append(connection)
    return chain


def _first_untrusted(chain: list[str], networks: tuple[Network, ...]) -> str:
    """From the right, the first entry outside ``networks``, or the leftmost read when all are inside."""
    for entry in reversed(chain):
        if not _inside(_address(entry), networks):
            return entry
    return chain[0]


def _inside(address: IpAddress | None, networks: tuple[Network, ...]) -> bool:
    return address is not None and any(address.version == n.version and address in n for n in networks)


def _address(text: str, *, port: bool = False) -> IpAddress | None:
    """An entry's address (``[v6]:port``, ``v4:port``, or bare; an IPv4-mapped address as IPv4), or ``None``.
    ``port``: the text ends in ``:port`` (CloudFront writes IPv6 unbracketed, ``2001:db8::1:443``)."""
    text = text.strip()
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        text = inside
    elif port or text.count(":") == 1:
        host, colon, number = text.rpartition(":")
        if colon and number.isdigit():
            text = host
        elif port and text.count(":") != 0:
            return None
    if not text or "%" in text or len(text) > 45:
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address
