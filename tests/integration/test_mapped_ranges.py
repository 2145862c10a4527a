"""IPv4-mapped IPv6 ranges in range files answer their IPv4 addresses, looked up either way, through the real
loader and lookup on DynamoDB Local."""

from __future__ import annotations

from typing import Any

from tests.support.lookups import batch_lookup
from tests.support.stacks import Stack

PROBES = ["1.0.0.5", "::ffff:1.0.0.5", "1.0.1.5", "::ffff:1.0.1.5", "2.0.0.1", "2001:db8::1", "::fffe:ffff:ffff"]


def _answers(stack: Stack, dataset: str) -> list[Any]:
    return [(r["ip"], r.get("data"), r.get("range")) for r in batch_lookup(stack, dataset, PROBES)]


def test_a_file_of_mapped_ranges_answers_their_ipv4_addresses(stack: Stack) -> None:
    # Given mapped ranges as text (one nested in a native IPv4 range), beside IPv6
    stack.put(
        "geo/ranges.csv",
        "start,end,country\n1.0.0.0,1.0.255.255,AU\n::ffff:1.0.0.0,::ffff:1.0.0.255,CN\n2001:db8::,2001:db8::ffff,ZZ\n",
    )
    stack.drain()
    assert stack.dataset("geo")["status"] == "READY"
    # Then both forms of a mapped address are answered by the mapped range, which wins inside the native /16
    cn = {"start": "1.0.0.0", "end": "1.0.0.255", "cidrs": ["1.0.0.0/24"]}
    au = {"start": "1.0.0.0", "end": "1.0.255.255", "cidrs": ["1.0.0.0/16"]}
    assert _answers(stack, "geo") == [
        ("1.0.0.5", {"country": "CN"}, cn),
        ("1.0.0.5", {"country": "CN"}, cn),
        ("1.0.1.5", {"country": "AU"}, au),
        ("1.0.1.5", {"country": "AU"}, au),
        ("2.0.0.1", None, None),
        (
            "2001:db8::1",
            {"country": "ZZ"},
            {"start": "2001:db8::", "end": "2001:db8::ffff", "cidrs": ["2001:db8::/112"]},
        ),
        ("::fffe:ffff:ffff", None, None),
    ]


def test_an_ip2location_style_integer_file_answers_its_ipv4_addresses(stack: Stack) -> None:
    # Given IP2Location's IPv6 layout: integers, IPv4 space as mapped addresses, one row straddling the block
    stack.put(
        "ip2l/IP2LOCATION-LITE-DB1.IPV6.CSV",
        '"281470698520576","281470698520831","AU","Australia"\n'  # ::ffff:1.0.0.0 - ::ffff:1.0.0.255
        '"281470681743359","281470698520575","-","-"\n'  # ::fffe:ffff:ffff - ::ffff:0.255.255.255
        '"42540766411282592856903984951653826560","42540766411282592856903984951653892095","ZZ","Example"\n',
    )
    stack.drain()
    record = stack.dataset("ip2l")
    assert (record["status"], record["ranges"]) == ("READY", 3)
    au = {"col3": "AU", "col4": "Australia"}
    answers = _answers(stack, "ip2l")
    assert answers[0] == ("1.0.0.5", au, {"start": "1.0.0.0", "end": "1.0.0.255", "cidrs": ["1.0.0.0/24"]})
    assert answers[1] == answers[0]
    assert answers[2][1:] == (None, None)
    assert answers[5] == (
        "2001:db8::1",
        {"col3": "ZZ", "col4": "Example"},
        {"start": "2001:db8::", "end": "2001:db8::ffff", "cidrs": ["2001:db8::/112"]},
    )
    # And the straddling row answers on both sides of the block: its IPv6 part, and its IPv4 part
    dash = {"col3": "-", "col4": "-"}
    assert answers[6] == (
        "::fffe:ffff:ffff",
        dash,
        {"start": "::fffe:ffff:ffff", "end": "::fffe:ffff:ffff", "cidrs": ["::fffe:ffff:ffff/128"]},
    )
    found = batch_lookup(stack, "ip2l", ["0.0.0.1"])[0]
    assert (found["data"], found["range"]) == (
        dash,
        {"start": "0.0.0.0", "end": "0.255.255.255", "cidrs": ["0.0.0.0/8"]},
    )
