"""The client's address behind proxies (``fencepost.core.space.forwarded``): forged and chained X-Forwarded-For
headers, CloudFront's viewer address and malformed entries, under each form of ``TRUSTED_PROXIES``."""

from __future__ import annotations

import time

import pytest

from fencepost.core.space.forwarded import client_address, parse_trust

EDGE = "130.176.1.2"  # a CloudFront edge: the connection's address behind CloudFront
CLIENT = "198.51.100.7"
FORGED = "203.0.113.9"

# setting, connection's address, X-Forwarded-For, CloudFront-Viewer-Address, the answer
CASES = [
    # no trust: the connection's address, whatever the headers say
    ("none", CLIENT, f"{FORGED}, {CLIENT}", None, CLIENT),
    ("none", EDGE, f"{FORGED}, {CLIENT}, {EDGE}", f"{CLIENT}:443", EDGE),
    ("", CLIENT, FORGED, None, CLIENT),
    # hops=1: CloudFront in front of a function URL or HTTP API
    ("hops=1", EDGE, f"{CLIENT}, {EDGE}", None, CLIENT),
    ("hops=1", EDGE, f"{FORGED}, {CLIENT}, {EDGE}", None, CLIENT),  # a forged leftmost entry is never read
    ("hops=1", EDGE, f"{FORGED}, {FORGED}, {CLIENT}, {EDGE}", None, CLIENT),
    ("hops=1", EDGE, f"{FORGED},{CLIENT}", None, CLIENT),  # the front did not append: the connection counts
    ("hops=1", EDGE, None, None, EDGE),  # no header: the connection's address
    ("hops=1", EDGE, "", None, EDGE),
    # hops=2: a load balancer behind CloudFront
    ("hops=2", "10.0.0.5", f"{FORGED}, {CLIENT}, {EDGE}, 10.0.0.5", None, CLIENT),
    ("hops=2", "10.0.0.5", f"{CLIENT}, 10.0.0.5", None, CLIENT),  # fewer hops: the leftmost, a trusted hop's view
    # hops=1 with a direct caller: its own header entry is taken (why the proxy must be the only way in)
    ("hops=1", CLIENT, f"{FORGED}, {CLIENT}", None, FORGED),
    # malformed where the client should be: the connection's address, never an entry further left
    ("hops=1", EDGE, f"{FORGED}, garbage, {EDGE}", None, EDGE),
    ("hops=1", EDGE, f"{FORGED}, , {EDGE}", None, EDGE),
    ("hops=1", EDGE, f"{FORGED}, unknown, {EDGE}", None, EDGE),
    ("hops=1", EDGE, f"{FORGED}, 1.2.3.4.5, {EDGE}", None, EDGE),
    ("hops=1", EDGE, f"{FORGED}, fe80::1%eth0, {EDGE}", None, EDGE),
    ("hops=1", EDGE, f"{FORGED}, [2001:db8::1, {EDGE}", None, EDGE),
    ("hops=1", EDGE, f"{FORGED}, [2001:db8::1]x, {EDGE}", None, EDGE),
    # ports, brackets, spaces, IPv6 and IPv4-mapped entries
    ("hops=1", EDGE, f"{CLIENT}:51234, {EDGE}", None, CLIENT),
    ("hops=1", EDGE, f"[2001:db8::1]:443, {EDGE}", None, "2001:db8::1"),
    ("hops=1", EDGE, f"  2001:db8::1  ,{EDGE}", None, "2001:db8::1"),
    ("hops=1", EDGE, f"::ffff:{CLIENT}, {EDGE}", None, CLIENT),
    ("hops=1", "2600:9000::1", "2001:db8::7, 2600:9000::1", None, "2001:db8::7"),
    ("hops=1", EDGE, f"{CLIENT}, ::ffff:{EDGE}", None, CLIENT),  # the connection written as mapped counts once
    # networks: the first address from the right outside them
    ("networks=10.0.0.0/8", "10.0.0.5", f"{FORGED}, {CLIENT}, 10.1.2.3", None, CLIENT),
    ("networks=10.0.0.0/8", "10.0.0.5", f"{FORGED}, {CLIENT}, 10.1.2.3, 10.0.0.5", None, CLIENT),
    ("networks=10.0.0.0/8", CLIENT, f"{FORGED}, 10.1.2.3", None, CLIENT),  # the connection itself is untrusted
    ("networks=10.0.0.0/8,2600:9000::/28", "2600:9000::1", f"{CLIENT}, 10.0.0.9", None, CLIENT),
    ("networks=10.0.0.0/8", "10.0.0.5", f"{FORGED}, junk, 10.1.2.3", None, "10.0.0.5"),
    ("networks=10.0.0.0/8", "10.0.0.5", "10.0.0.7, 10.1.2.3", None, "10.0.0.7"),  # all trusted: the leftmost
    ("networks=10.0.0.0/8", "10.0.0.5", f"{CLIENT}, ::ffff:10.1.2.3", None, CLIENT),
    # cloudfront: the viewer's address, IPv4 or IPv6 with its port
    ("cloudfront", EDGE, f"{FORGED}, {EDGE}", f"{CLIENT}:443", CLIENT),
    ("cloudfront", EDGE, None, "2001:db8::1:51234", "2001:db8::1"),
    ("cloudfront", EDGE, None, "[2001:db8::1]:51234", "2001:db8::1"),
    ("cloudfront", EDGE, None, None, EDGE),
    ("cloudfront", EDGE, None, "garbage", EDGE),
    ("cloudfront", EDGE, None, f"{CLIENT}:443, {FORGED}:1", EDGE),  # two values: neither is taken
    ("cloudfront", EDGE, None, "2001:db8::1", EDGE),  # IPv6 without its port is ambiguous
    ("cloudfront=130.176.0.0/16", EDGE, None, f"{CLIENT}:443", CLIENT),
    ("cloudfront=130.176.0.0/16", FORGED, None, f"{CLIENT}:443", FORGED),  # a forged header from outside
]


@pytest.mark.parametrize(("setting", "connection", "forwarded", "viewer", "expected"), CASES)
def test_the_client_is_named_only_by_trusted_hops(
    setting: str, connection: str, forwarded: str | None, viewer: str | None, expected: str
) -> None:
    assert client_address(parse_trust(setting), connection, forwarded, viewer) == expected


def test_only_the_rightmost_entries_are_read() -> None:
    trust = parse_trust("networks=10.0.0.0/8", entries=3)
    forwarded = ", ".join([CLIENT] + ["10.0.0.9"] * 5)
    assert client_address(trust, "10.0.0.5", forwarded, None) == "10.0.0.9"  # the client is past the bound
    assert client_address(trust, "10.0.0.5", f"{CLIENT}, 10.0.0.8, 10.0.0.9", None) == CLIENT


def test_a_long_forged_header_costs_no_more_than_its_rightmost_entries() -> None:
    trust = parse_trust("hops=1")
    forwarded = ", ".join([FORGED] * 200_000 + [CLIENT, EDGE])
    start = time.perf_counter()
    for _ in range(100):
        assert client_address(trust, EDGE, forwarded, None) == CLIENT
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize(
    "text",
    [
        "hops",
        "hops=0",
        "hops=-1",
        "hops=21",
        "hops=two",
        "hops=²",
        "networks=",
        "networks=10.0.0.0/33",
        "cloudfront=x",
        "all",
    ],
)
def test_a_setting_it_cannot_read_is_refused_naming_what_it_takes(text: str) -> None:
    with pytest.raises(ValueError, match=r"hops|network|none"):
        parse_trust(text)


def test_hops_are_bounded_by_the_entries_read() -> None:
    assert parse_trust("hops=30", entries=30).hops == 30
    with pytest.raises(ValueError, match="1 to 20"):
        parse_trust("hops=30")
