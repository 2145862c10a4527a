"""Synthetic feeds shaped like real ones, as rows of cells (``start, end, values...``)."""

from __future__ import annotations

import ipaddress
import itertools
from collections.abc import Iterator


def networks(network: str, prefix: int, count: int, label: str) -> list[list[str]]:
    """``count`` consecutive networks of length ``prefix`` from ``network``, as rows of a list like DROP."""
    subnets: Iterator[ipaddress.IPv4Network | ipaddress.IPv6Network] = ipaddress.ip_network(network).subnets(
        new_prefix=prefix
    )
    return [[str(net.network_address), str(net.broadcast_address), label] for net in itertools.islice(subnets, count)]


def drop_list() -> list[list[str]]:
    """A DROP-style blocklist: 1,000 IPv4 /20s, one every /16, and 200 IPv6 /32s (every other one)."""
    v4 = [networks(f"{10 + k // 256}.{k % 256}.0.0/16", 20, 1, "drop")[0] for k in range(1000)]
    v6 = networks("2a00::/16", 32, 400, "drop")[::2]
    return v4 + v6


# The creeping feed: a 60-network blocklist (50 IPv4 /24s, 10 IPv6 /48s), then releases that each stay under
# a 5% change gate of the whole address space: twelve /8s and 2000::/5 (4.69% of IPv4, 3.1% of IPv6), twelve more and
# 2800::/5, then reserved space (0/8, 10/8, 127/8, RFC 1918, fc00::/7, ::1). Each release keeps what the last had.
CREEP_BASE = (("45.0.0.0/16", 24, 50), ("2a01:4f8::/32", 48, 10))
CREEP_STEPS = (
    [f"{20 + k}.0.0.0/8" for k in range(12)] + ["2000::/5"],
    [f"{32 + k}.0.0.0/8" for k in range(12)] + ["2800::/5"],
    ["0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "::1/128"],
)


def creeping_releases() -> list[list[str]]:
    """The blocklist's releases as networks (CIDR), as its publisher lists them."""
    listed: list[str] = []
    for network, prefix, count in CREEP_BASE:
        subnets = ipaddress.ip_network(network).subnets(new_prefix=prefix)
        listed += [str(net) for net in itertools.islice(subnets, count)]
    releases = [listed]
    for step in CREEP_STEPS:
        listed = listed + step
        releases.append(listed)
    return releases


def creeping_feed() -> list[list[list[str]]]:
    """The same releases as rows of cells (first address, last address, a label)."""
    return [
        [[str(net.network_address), str(net.broadcast_address), "bad"] for net in map(ipaddress.ip_network, release)]
        for release in creeping_releases()
    ]
