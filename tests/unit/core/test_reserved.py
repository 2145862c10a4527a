"""The special-purpose address table: every entry valid and nested, and lookups answering the most specific one."""

from __future__ import annotations

import ipaddress
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fencepost.core.space.addresses import BITS, V4, V6, parse_address
from fencepost.core.space.reserved import TABLE, Reserved, build, entry, registry, reserved, reserved_field

DOCUMENT = json.loads(TABLE.read_text(encoding="utf-8"))
ENTRIES = registry().entries


def test_the_table_states_each_registrys_last_updated_date() -> None:
    assert set(registry().updated) == {"iana-ipv4-special-registry", "iana-ipv6-special-registry"}
    for date in registry().updated.values():
        assert re.fullmatch(r"20\d\d-\d\d-\d\d", date)


@pytest.mark.parametrize("record", DOCUMENT["entries"], ids=lambda record: record["network"])
def test_every_entry_is_a_normalized_network_of_its_family(record: dict[str, str]) -> None:
    network = ipaddress.ip_network(record["network"], strict=True)  # host bits zero, or ValueError
    assert str(network) == record["network"]  # written in canonical form
    item = entry(record)
    assert item.family == (V4 if network.version == 4 else V6)
    assert (item.first, item.last, item.prefix) == (
        int(network.network_address),
        int(network.broadcast_address),
        network.prefixlen,
    )
    assert record["name"].strip() == record["name"] != ""
    # The registry's own references: one or more documents, each possibly with a section.
    assert re.fullmatch(r"RFC (Errata )?\d+(, (RFC (Errata )?\d+|Section [\d.]+))*", record["rfc"])


def test_entries_nest_or_are_disjoint_and_no_network_is_listed_twice() -> None:
    networks = [item.network for item in ENTRIES]
    assert len(networks) == len(set(networks))
    for a in ENTRIES:
        for b in ENTRIES:
            if a is b or a.family != b.family:
                continue
            disjoint = a.last < b.first or b.last < a.first
            nested = (a.first <= b.first and b.last <= a.last) or (b.first <= a.first and a.last <= b.last)
            assert disjoint or nested, (a.network, b.network)


@pytest.mark.parametrize(
    "text",
    ["10.0.0.1/8", "10.0.0.0/33", "10.0.0.0", "2001:db8::1/32", "2001:db8::/129", "nonsense/8", "10.0.0.0/x"],
)
def test_an_entry_with_host_bits_or_a_bad_prefix_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"host bits|prefix length|not an IPv4 or IPv6 address"):
        entry({"network": text, "name": "x", "rfc": "RFC 1"})


@pytest.mark.parametrize(
    ("address", "name", "network"),
    [
        ("10.1.2.3", "Private-Use", "10.0.0.0/8"),
        ("192.0.0.9", "Port Control Protocol Anycast", "192.0.0.9/32"),
        ("192.0.0.8", "IPv4 dummy address", "192.0.0.8/32"),
        ("192.0.0.5", "IPv4 Service Continuity Prefix", "192.0.0.0/29"),
        ("192.0.0.200", "IETF Protocol Assignments", "192.0.0.0/24"),
        ("2001:db8::1", "Documentation", "2001:db8::/32"),
        ("100.64.0.1", "Shared Address Space", "100.64.0.0/10"),
        ("::1", "Loopback Address", "::1/128"),
        ("::", "Unspecified Address", "::/128"),
        ("fe80::1", "Link-Local Unicast", "fe80::/10"),
        ("0.0.0.0", '"This host on this network"', "0.0.0.0/32"),
        ("0.1.2.3", '"This network"', "0.0.0.0/8"),
        ("255.255.255.255", "Limited Broadcast", "255.255.255.255/32"),
        ("255.255.255.254", "Reserved", "240.0.0.0/4"),
        ("2001::1", "TEREDO", "2001::/32"),
        ("2001:1::1", "Port Control Protocol Anycast", "2001:1::1/128"),
        ("2001:1::4", "IETF Protocol Assignments", "2001::/23"),
        ("fd00::1", "Unique-Local", "fc00::/7"),
        ("::ffff:10.0.0.1", "Private-Use", "10.0.0.0/8"),  # answered as IPv4, not by ::ffff:0:0/96
    ],
)
def test_well_known_addresses_answer_their_most_specific_entry(address: str, name: str, network: str) -> None:
    found = reserved(*parse_address(address))
    assert found is not None
    assert (found.name, found.network) == (name, network)


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700::1111", "223.255.255.255", "::2"])
def test_ordinary_addresses_are_not_reserved(address: str) -> None:
    assert reserved(*parse_address(address)) is None
    assert reserved_field(*parse_address(address)) == {}


def test_the_field_carries_name_network_and_every_reference() -> None:
    assert reserved_field(*parse_address("10.1.2.3")) == {
        "reserved": {"name": "Private-Use", "network": "10.0.0.0/8", "rfc": "RFC 1918"}
    }
    assert reserved_field(*parse_address("fc00::1"))["reserved"]["rfc"] == "RFC 4193, RFC 8190"


def test_the_mapped_block_is_in_the_table_though_lookups_answer_mapped_addresses_as_ipv4() -> None:
    mapped = [item for item in ENTRIES if item.network == "::ffff:0:0/96"]
    assert len(mapped) == 1
    assert registry().find(V6, mapped[0].first + 1) == mapped[0]
    assert parse_address("::ffff:0.0.0.1") == (V4, 1)


def brute_force(entries: tuple[Reserved, ...], family: int, address: int) -> Reserved | None:
    covering = [item for item in entries if item.contains(family, address)]
    return max(covering, key=lambda item: item.prefix, default=None)


def near_entries(family: int) -> st.SearchStrategy[int]:
    """Addresses at, just inside and just outside the entries' edges, and anywhere."""
    edges = [edge for item in ENTRIES if item.family == family for edge in (item.first, item.last)]
    top = (1 << BITS[family]) - 1
    near = st.tuples(st.sampled_from(edges), st.integers(-2, 2)).map(lambda pair: min(max(sum(pair), 0), top))
    return st.one_of(near, st.integers(0, top))


@given(st.one_of(near_entries(V4).map(lambda a: (V4, a)), near_entries(V6).map(lambda a: (V6, a))))
def test_lookup_agrees_with_a_scan_of_the_table(key: tuple[int, int]) -> None:
    assert reserved(*key) == brute_force(ENTRIES, *key)


@st.composite
def random_tables(draw: st.DrawFn) -> tuple[Reserved, ...]:
    """Random nested tables of small IPv4 networks, to check the flattening apart from the real table."""
    records = []
    for _ in range(draw(st.integers(0, 12))):
        prefix = draw(st.integers(20, 32))
        first = draw(st.integers(0, (1 << 12) - 1)) << (32 - prefix) & 0xFFFFFFFF
        records.append({"network": f"{ipaddress.IPv4Address(first)}/{prefix}", "name": "n", "rfc": "RFC 1"})
    unique = list({record["network"]: record for record in records}.values())
    return build({"registries": [], "entries": unique}).entries


@given(random_tables(), st.integers(0, (1 << 32) - 1))
def test_flattening_any_table_of_networks_agrees_with_a_scan(entries: tuple[Reserved, ...], seed: int) -> None:
    table = build(
        {"registries": [], "entries": [{"network": i.network, "name": i.name, "rfc": i.rfc} for i in entries]}
    )
    probes = [seed] + [edge + step for item in entries for edge in (item.first, item.last) for step in (-1, 0, 1)]
    for address in (a for a in probes if 0 <= a < 1 << 32):
        assert table.find(V4, address) == brute_force(entries, V4, address)


# -- the reserved_space gate's finding -------------------------------------------------------------------------------


def test_every_entry_states_whether_the_registry_marks_it_globally_reachable() -> None:
    for record in DOCUMENT["entries"]:
        assert record["global"] in (True, False, None), record  # None: the registry says N/A, or nothing
    reachable = {item.network: item.reachable for item in ENTRIES}
    assert (reachable["10.0.0.0/8"], reachable["192.0.0.9/32"], reachable["2002::/16"]) == (False, True, None)
    # Space no public feed answers for: what the gate refuses
    unreachable = {item.network for item in ENTRIES if item.reachable is False}
    assert {"0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"} < unreachable
    assert {"169.254.0.0/16", "192.0.2.0/24", "fc00::/7", "::1/128", "fe80::/10", "2001:db8::/32"} < unreachable


def _spans(*texts: str) -> dict[int, tuple[list[int], list[int]]]:
    """Sorted disjoint pieces, as ``first_unreachable`` takes them, from networks."""
    spans: dict[int, tuple[list[int], list[int]]] = {V4: ([], []), V6: ([], [])}
    for text in texts:
        network = ipaddress.ip_network(text)
        family = V4 if network.version == 4 else V6
        spans[family][0].append(int(network.network_address))
        spans[family][1].append(int(network.broadcast_address))
    return spans


@pytest.mark.parametrize(
    ("pieces", "found"),
    [
        ((), None),
        (("45.0.0.0/24", "2a01:4f8::/32"), None),
        (("10.1.2.0/24",), "10.0.0.0/8"),
        (("9.0.0.0/8", "11.0.0.0/8"), None),  # touching 10/8 on both sides, never in it
        (("8.0.0.0/6",), "10.0.0.0/8"),  # a wide piece holding it
        (("192.0.0.9/32", "192.0.0.10/32"), None),  # reachable exceptions inside 192.0.0.0/24
        (("192.0.0.0/29",), "192.0.0.0/24"),  # named by the widest unreachable entry holding it
        (("192.0.0.128/25",), "192.0.0.0/24"),
        (("2002::/16", "2001::/32", "64:ff9b::/96"), None),  # 6to4 and Teredo are N/A, NAT64 reachable
        (("2000::/5",), "2001::/23"),
        (("0.0.0.0/0", "::/0"), "0.0.0.0/8"),  # IPv4 first, in address order
        (("fd00::/8",), "fc00::/7"),
        (("::1/128",), "::1/128"),
    ],
)
def test_the_first_unreachable_network_a_build_answers_for_is_found_in_address_order(
    pieces: tuple[str, ...], found: str | None
) -> None:
    result = registry().first_unreachable(_spans(*pieces))
    assert (None if result is None else result.network) == found


def test_an_entry_names_itself_with_its_name_and_references() -> None:
    found = registry().find(V4, int(ipaddress.ip_address("10.0.0.1")))
    assert found is not None
    assert found.text() == "10.0.0.0/8 (Private-Use, RFC 1918)"
