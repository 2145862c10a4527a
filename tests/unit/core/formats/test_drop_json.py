"""Spamhaus DROP as JSON lines (``drop_v4.json``, ``drop_v6.json``): a network a line with its SBL reference and
registry, the closing metadata line skipped, every other line a problem with its number."""

from __future__ import annotations

from fencepost.core.formats.base import Layout
from fencepost.core.space.addresses import V4, V6
from tests.reading import address as a
from tests.reading import collected as _ranges
from tests.support.formats import problems_of, read_sample

# The layout Spamhaus publishes (https://www.spamhaus.com/faqs/drop): one object a line, metadata last.
DROP_V4 = """\
{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}
{"cidr":"1.19.0.0/16","sblid":"SBL434604","rir":"apnic"}
{"cidr":"2.56.192.0/22","sblid":"SBL459831","rir":"ripencc"}
{"type":"metadata","timestamp":1727634153,"size":82682,"records":3,"copyright":"(c) 2024 The Spamhaus Project SLU","terms":"https://www.spamhaus.org/drop/terms/"}
"""
DROP_V6 = """\
{"cidr":"2001:678:738::/48","sblid":"SBL635837","rir":"ripencc"}
{"type":"metadata","timestamp":1727634153,"size":120,"records":1}
"""


def test_each_line_is_a_network_with_its_reference_and_registry() -> None:
    summary, collector, problems = read_sample(DROP_V4)
    assert (summary.layout, summary.columns, summary.rows, problems.count) == (Layout.DROP_JSON, ("sblid", "rir"), 3, 0)
    assert _ranges(collector, V4) == [
        (a("1.10.16.0"), a("1.10.31.255"), ("SBL256894", "apnic")),
        (a("1.19.0.0"), a("1.19.255.255"), ("SBL434604", "apnic")),
        (a("2.56.192.0"), a("2.56.195.255"), ("SBL459831", "ripencc")),
    ]


def test_the_ipv6_list() -> None:
    _, collector, _ = read_sample(DROP_V6)
    assert _ranges(collector, V6) == [
        (a("2001:678:738::"), a("2001:678:738:ffff:ffff:ffff:ffff:ffff"), ("SBL635837", "ripencc"))
    ]


def test_a_line_that_is_not_a_drop_object_is_a_problem_with_its_number() -> None:
    text = DROP_V4.replace('{"cidr":"1.19.0.0/16"', '{"cdr":"1.19.0.0/16"') + "not json\n" + '{"cidr":"1.2.3.4/8"}\n'
    summary, _, problems = read_sample(text)
    assert summary.rows == 2
    assert problems_of(problems) == [
        (2, "the object has no cidr"),
        (5, "not a JSON object: each line of a DROP JSON file is one"),
        (6, problems_of(read_sample("1.2.3.4/8\n")[2])[0][1]),  # host bits set: refused as a netset's line is
    ]
