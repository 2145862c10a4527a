"""Lists of networks and addresses, one a line (FireHOL netsets and ipsets, Spamhaus DROP): read as ranges, every bad
entry a problem with its line, binary refused."""

from __future__ import annotations

import pytest

from fencepost.core.formats.base import FileError, Layout
from fencepost.core.space.addresses import (
    MAPPED_FIRST,
    MAPPED_LAST,
    TOP,
    V4,
    V6,
)
from fencepost.core.storage.items import MAX_ITEM_BYTES
from tests.reading import address as a
from tests.reading import collected as _ranges
from tests.support.formats import problems_of, read_sample
from tests.support.published import CLOUDFLARE_V4, CLOUDFLARE_V6, TOR_BULK_EXIT_LIST, X4BNET_VPN

# --- the lists -------------------------------------------------------------------------

FIREHOL_NETSET = """\
#
# firehol_level1
#
# ipv4 hash:net ipset
#
# A firewall blacklist composed from IP lists, providing
# maximum protection with minimum false positives.
#
# Maintainer      : FireHOL
# Maintainer URL  : http://iplists.firehol.org/
#
# This File Date  : Tue Nov 14 09:27:23 UTC 2023
#
0.0.0.0/8
1.10.16.0/20
1.19.0.0/16
2.56.192.0/22
5.134.128.0/19
"""

SPAMHAUS_DROP = """\
; Spamhaus DROP List 2023/11/14 - (c) 2023 The Spamhaus Project SLU
; https://www.spamhaus.org/drop/drop.txt
; Last-Modified: Tue, 14 Nov 2023 08:13:54 GMT
; Expires: Tue, 14 Nov 2023 09:27:29 GMT
1.10.16.0/20 ; SBL256894
1.19.0.0/16 ; SBL434604
1.32.128.0/18 ; SBL286275
"""


def test_a_firehol_netset_with_its_header_block() -> None:
    summary, collector, problems = read_sample(FIREHOL_NETSET)
    assert (summary.layout, summary.header, summary.columns) == (Layout.LIST, False, ("comment",))
    assert (summary.rows, problems.count) == (5, 0)
    assert _ranges(collector, V4)[:2] == [(0, a("0.255.255.255"), ("",)), (a("1.10.16.0"), a("1.10.31.255"), ("",))]


def test_a_spamhaus_drop_list_keeps_each_sbl_reference_as_the_comment() -> None:
    summary, collector, _ = read_sample(SPAMHAUS_DROP)
    assert summary.layout is Layout.LIST
    assert _ranges(collector, V4) == [
        (a("1.10.16.0"), a("1.10.31.255"), ("SBL256894",)),
        (a("1.19.0.0"), a("1.19.255.255"), ("SBL434604",)),
        (a("1.32.128.0"), a("1.32.191.255"), ("SBL286275",)),
    ]


def test_an_ipset_of_bare_addresses_of_both_families_with_bom_and_crlf() -> None:
    summary, collector, _ = read_sample("\ufeff# ipset\r\n\r\n1.2.3.4\r\n2001:db8::1 ; one host\r\n".encode())
    assert summary.layout is Layout.LIST
    assert _ranges(collector, V4) == [(a("1.2.3.4"), a("1.2.3.4"), ("",))]
    assert _ranges(collector, V6) == [(a("2001:db8::1"), a("2001:db8::1"), ("one host",))]


def test_mapped_entries_of_a_list_are_ipv4_and_a_network_around_the_block_is_split() -> None:
    _, collector, _ = read_sample("::ffff:1.2.3.0/120 ; mapped\n::ffff:9.9.9.9\n::/64 ; around\n")
    assert _ranges(collector, V4) == [
        (a("1.2.3.0"), a("1.2.3.255"), ("mapped",)),
        (a("9.9.9.9"), a("9.9.9.9"), ("",)),
        (0, TOP[V4], ("around",)),
    ]
    assert _ranges(collector, V6) == [(0, MAPPED_FIRST - 1, ("around",)), (MAPPED_LAST + 1, (1 << 64) - 1, ("around",))]


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ("1.10.16.1/20", "host bits set"),
        ("1.10.16.0/33", "prefix longer than 32 bits"),
        ("1.10.16.0/2x", "not in CIDR form"),
        ("1.10.16.x", "address '1.10.16.x' is not an IPv4 or IPv6 address"),
        ("1.10.16.0/20 1.2.3.4", "is not one address or network"),
        ("1.10.16.0/20,SBL1", "is not one address or network"),
        ("  ; SBL1", None),  # a comment line, however indented: skipped
        ("1.10.16.0/20 ; " + "x" * MAX_ITEM_BYTES, "does not fit a 400 KB"),
    ],
)
def test_bad_list_entries_are_problems_with_their_line(entry: str, reason: str | None) -> None:
    summary, collector, problems = read_sample(f"; DROP\n1.0.0.0/24 ; SBL0\n{entry}\n2.0.0.0/24 ; SBL2\n")
    assert summary.rows == len(_ranges(collector, V4)) == 2
    if reason is None:
        assert problems.count == 0
        return
    ((line, got),) = problems_of(problems)
    assert (line, reason in got) == (3, True)


def test_a_list_holding_nul_bytes_is_binary() -> None:
    with pytest.raises(FileError, match="NUL") as raised:
        read_sample(b"1.0.0.0/24\n2.0.0.0/24\x00\n")
    assert raised.value.line == 2


def test_the_tor_bulk_exit_list_is_a_list_of_addresses() -> None:
    summary, collector, problems = read_sample(TOR_BULK_EXIT_LIST)
    assert (summary.layout, summary.columns, summary.rows, problems.count) == (Layout.LIST, ("comment",), 3, 0)
    assert _ranges(collector, V4) == [
        (a("171.25.193.77"), a("171.25.193.77"), ("",)),
        (a("185.220.101.1"), a("185.220.101.1"), ("",)),
    ]
    assert _ranges(collector, V6) == [(a("2a0b:f4c2::1"), a("2a0b:f4c2::1"), ("",))]


def test_cloudflare_and_x4bnet_lists_are_lists_of_networks() -> None:
    summary, collector, _ = read_sample(CLOUDFLARE_V4)
    assert (summary.layout, summary.rows) == (Layout.LIST, 3)
    assert _ranges(collector, V4)[-1] == (a("104.16.0.0"), a("104.23.255.255"), ("",))
    assert read_sample(CLOUDFLARE_V6)[0].rows == 2
    summary, collector, _ = read_sample(X4BNET_VPN)
    assert (summary.layout, summary.rows) == (Layout.LIST, 3)
    assert _ranges(collector, V4)[0] == (a("1.12.32.0"), a("1.12.33.255"), ("",))
