"""The JSON documents cloud and CDN providers publish their networks in (AWS, Google, Oracle, Fastly), each in its
publisher's documented layout: recognised by its keys, a prefix listed under several services one range, every bad
entry a problem named by where it is, and documents that are none of them refused with the reason."""

from __future__ import annotations

import pytest

from fencepost.core.formats.base import FileError, Layout, ReadOptions
from fencepost.core.space.addresses import V4, V6
from tests.reading import address as a
from tests.reading import collected as _ranges
from tests.support.formats import problems_of, read_sample
from tests.support.published import AWS, FASTLY, GOOGLE, ORACLE


def test_aws_one_range_a_prefix_with_every_service() -> None:
    summary, collector, problems = read_sample(AWS)
    assert (summary.layout, summary.columns, summary.rows, problems.count) == (
        Layout.AWS,
        ("service", "region", "network_border_group"),
        3,
        0,
    )
    assert _ranges(collector, V4) == [
        (a("3.4.12.4"), a("3.4.12.4"), ("AMAZON", "eu-west-1", "eu-west-1")),
        (a("3.5.140.0"), a("3.5.143.255"), ("AMAZON S3", "ap-northeast-2", "ap-northeast-2")),
    ]
    assert _ranges(collector, V6) == [
        (a("2600:1f14::"), a("2600:1f14:1fff:ffff:ffff:ffff:ffff:ffff"), ("EC2", "us-west-2", "us-west-2"))
    ]


def test_google_cloud_json() -> None:
    summary, collector, _ = read_sample(GOOGLE)
    assert (summary.layout, summary.columns, summary.rows) == (Layout.GOOGLE, ("service", "scope"), 2)
    assert _ranges(collector, V4) == [(a("34.1.208.0"), a("34.1.223.255"), ("Google Cloud", "africa-south1"))]
    assert _ranges(collector, V6)[0][2] == ("Google Cloud", "africa-south1")


def test_oracle_regions_and_tags() -> None:
    summary, collector, _ = read_sample(ORACLE)
    assert (summary.layout, summary.columns, summary.rows) == (Layout.ORACLE, ("region", "tags"), 3)
    assert _ranges(collector, V4) == [
        (a("129.146.0.0"), a("129.146.7.255"), ("us-phoenix-1", "OCI")),
        (a("134.70.8.0"), a("134.70.15.255"), ("us-phoenix-1", "OSN OBJECT_STORAGE")),
        (a("129.213.8.0"), a("129.213.15.255"), ("us-ashburn-1", "OCI")),
    ]


def test_fastly_networks_without_columns() -> None:
    summary, collector, _ = read_sample(FASTLY)
    assert (summary.layout, summary.columns, summary.rows) == (Layout.FASTLY, (), 3)
    assert _ranges(collector, V4) == [
        (a("23.235.32.0"), a("23.235.47.255"), ()),
        (a("43.249.72.0"), a("43.249.75.255"), ()),
    ]
    assert _ranges(collector, V6) == [(a("2a04:4e40::"), a("2a04:4e40:ffff:ffff:ffff:ffff:ffff:ffff"), ())]


def test_bad_entries_are_problems_named_by_where_they_are() -> None:
    text = AWS.replace('"3.4.12.4/32"', '"3.4.12.4/24"').replace('"ipv6_prefix": "2600:1f14::/35"', '"ipv6": "x"')
    summary, _, problems = read_sample(text)
    assert summary.rows == 1
    reasons = problems_of(problems)
    assert [line for line, _ in reasons] == [None, None]
    assert reasons[0][1].startswith("prefixes[0]: network '3.4.12.4/24' has host bits set")
    assert reasons[1][1] == "ipv6_prefixes[0]: no network (a string in CIDR form)"
    oracle = read_sample(ORACLE.replace('{"cidr": "129.213.8.0/21", ', '{"tags": [], "c": 1, '))[2]
    assert problems_of(oracle) == [(None, "regions[1].cidrs[0]: no network (a string in CIDR form)")]


def test_the_settings_may_rename_the_columns() -> None:
    summary, _, _ = read_sample(GOOGLE, ReadOptions(columns=("product", "region")))
    assert summary.columns == ("product", "region")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{\n  "syncToken": "1",\n  "prefixes": [\n', "line 4: not valid JSON: Expecting value (column 1)"),
        ('{"networks": ["1.0.0.0/24"]}\n', "a JSON document with the keys networks: not AWS ip-ranges.json"),
        ('{"createDate": "x", "prefixes": {"ip_prefix": "1.0.0.0/24"}}\n', "prefixes is not a list"),
        ('{"addresses": []}\n', "the file (fastly-public-ip-list format) has no ranges"),
    ],
)
def test_documents_that_cannot_be_read_fail_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(FileError) as failure:
        read_sample(text)
    assert str(failure.value).startswith(reason)


def test_a_document_over_the_bound_is_refused() -> None:
    with pytest.raises(FileError, match=r"line 9: a JSON document larger than 200 bytes \(MAX_DOCUMENT_BYTES\)"):
        read_sample(AWS, ReadOptions(max_document_bytes=200))


def test_line_formats_and_column_files_are_read_as_before() -> None:
    assert read_sample('{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}\n')[0].layout is Layout.DROP_JSON
    assert read_sample("network,cc\n1.0.0.0/24,AU\n")[0].layout is Layout.CIDR
