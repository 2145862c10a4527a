"""Where a request may go, checked before anything is sent, on the source's address and on every redirect:

- the host's addresses, resolved once: each must be a public one (not loopback, private, link-local such as the
  instance metadata's 169.254.169.254, unique-local such as ``fd00:ec2::254``, unspecified, multicast or reserved;
  an IPv4 address inside IPv6, mapped, 6to4 or NAT64, is judged as IPv4), so a source cannot read the Lambda
  runtime API, the metadata service or anything else inside the network. Every spelling of an address (``localhost``,
  ``2130706433``, ``0x7f.0.0.1``, ``[::1]``, ``[::ffff:127.0.0.1]``) resolves to one, which is what is judged. The
  connection then goes to the very address judged (``fencepost.downloads.connection``): no second resolution, so a
  name that answers differently the second time (DNS rebinding) cannot move it. Loopback is allowed only where the
  fetch function's ``SOURCE_ALLOW_LOOPBACK`` says so (``make run`` and the tests, whose publishers run here);
- the secrets it carries: each only to the hosts it is bound to (``Credential``; the binding is the secret's own
  tag, which a bucket writer cannot change: ``fencepost.core.sources.bindings``).
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote, unquote

from fencepost.core.sources.bindings import HOSTS_TAG
from fencepost.downloads.bounds import Budget, FetchError

Address = tuple[int, tuple[Any, ...]]  # an address family and a socket address, as getaddrinfo gives them
Resolver = Callable[[str, int], Sequence[Address]]

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
# Why an address is refused, in the order a person would name it.
_KINDS: Final = (
    ("is_unspecified", "unspecified"),
    ("is_loopback", "loopback"),
    ("is_link_local", "link-local"),
    ("is_multicast", "multicast"),
    ("is_private", "private"),
    ("is_reserved", "reserved"),
)


@dataclass(frozen=True, slots=True)
class Credential:
    """A secret a request carries: its name in the secret store, its value, and the hosts it may be sent to."""

    name: str
    value: str
    hosts: frozenset[str]
    tagged: bool = True  # False: the secret has no tag, and ``hosts`` are the presets' publishers

    def within(self, url: str) -> bool:
        """Whether the value is in ``url`` (a redirect's address may carry it on, quoted or not)."""
        return bool(self.value) and any(
            form in text for form in (self.value, quote(self.value, safe="")) for text in (url, unquote(url))
        )


def check_credentials(carried: Sequence[Credential], host: str, shown: str) -> None:
    """``FetchError`` unless every secret ``carried`` may go to ``host``: then nothing is sent."""
    name = host.lower().rstrip(".")
    for credential in carried:
        if name not in credential.hosts:
            hosts = ", ".join(sorted(credential.hosts)[:5]) or "no host"
            bound = f"its tag {HOSTS_TAG}" if credential.tagged else f"it has no {HOSTS_TAG} tag: the presets' hosts"
            raise FetchError(
                f"{shown}: secret {credential.name!r} may be sent only to {hosts} ({bound}), not to {host[:100]}: "
                "refused, nothing was sent"
            )


def system_resolver(host: str, port: int) -> list[Address]:
    return [(family, address) for family, _, _, _, address in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def checked_addresses(
    host: str, port: int, resolve: Resolver, budget: Budget, *, allow_loopback: bool, shown: str
) -> list[Address]:
    """The host's addresses, each one a source may reach; ``FetchError`` naming the first that is not."""
    found = _resolved(host, port, resolve, budget)
    if not found:
        raise OSError(f"no address for {host}")
    for _, address in found:
        ip = ipaddress.ip_address(str(address[0]).split("%", 1)[0])
        kind = refusal(ip, allow_loopback=allow_loopback)
        if kind is not None:
            raise FetchError(
                f"{shown}: {host[:100]} is at {ip}, a {kind} address: a source may only point to public addresses"
            )
    return list(found)


def refusal(ip: IP, *, allow_loopback: bool = False) -> str | None:
    """Why a source may not reach ``ip`` (the kind of address it is), or None when it may."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner, whole = _embedded(ip)
        if inner is not None:
            kind = refusal(inner, allow_loopback=allow_loopback)
            if kind is not None or whole:
                return kind
    if allow_loopback and ip.is_loopback:
        return None
    for attribute, kind in _KINDS:
        if getattr(ip, attribute):
            return kind
    return None if ip.is_global else "non-global"


def _embedded(ip: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address | None, bool]:
    """The IPv4 address an IPv6 one holds, and whether it stands for the whole address (mapped ``::ffff:a.b.c.d``,
    NAT64) or is only carried inside it (6to4, ``2002::/16``)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped, True
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF), True
    return ip.sixtofour, False


def _resolved(host: str, port: int, resolve: Resolver, budget: Budget) -> Sequence[Address]:
    """``resolve`` has no timeout of its own (getaddrinfo): it runs beside, waited on no longer than the budget."""
    wait = budget.left("resolving the host's name")
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(resolve(host, port))
        except OSError as error:
            outcome.append(error)

    thread = threading.Thread(target=run, name="resolve", daemon=True)
    thread.start()
    thread.join(wait)
    if not outcome:
        budget.check("resolving the host's name")
        raise TimeoutError("resolving the host's name timed out")
    if isinstance(outcome[0], OSError):
        raise outcome[0]
    found: Sequence[Address] = outcome[0]
    return found
