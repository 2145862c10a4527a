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
