"""The AWS log layouts read the example lines AWS documents: each line's field count, its addresses and its instant.

``tests/data/aws_logs/`` holds the documented examples as AWS prints them: ``alb.log`` from "Access logs for your
Application Load Balancer" (each entry on one line: the docs break them only to be read), ``cloudfront.log`` from the
CloudFront standard logging reference (with its ``#Version`` and ``#Fields`` lines, and the tab one example line ends
with), ``vpc_flow.log`` from the VPC "Flow log record examples" under the header line of a file delivered to Amazon S3,
and ``s3_access.log`` from "Amazon S3 server access log format" (two lines of today's format, then one of the format
before ``access_point_arn``). Expected instants are worked out here from the literal, with ``calendar.timegm``.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence

import pytest

from fencepost.core.logs import alb, cloudfront, s3_access, vpc_flow
from fencepost.core.logs.aws_layouts import LAYOUTS, field_names
from fencepost.core.logs.layout import LayoutError, LogLayout
from fencepost.core.logs.quoted_fields import split_quoted
from tests.support import ROOT

EXAMPLES = ROOT / "tests" / "data" / "aws_logs"


def lines(name: str) -> list[str]:
    return (EXAMPLES / name).read_text().splitlines()


def examples(name: str, expected: Sequence[object], skip: int = 0) -> list[tuple[str, object]]:
    """The documented lines of a file (past its first ``skip`` lines), each with what it is expected to give."""
    return list(zip(lines(name)[skip:], expected, strict=True))


def epoch(*moment: int, micro: int = 0) -> float:
    """Epoch seconds of a UTC year, month, day, hour, minute, second, and microseconds."""
    return (calendar.timegm(moment) * 10**6 + micro) / 10**6


def row(layout: LogLayout, line: str, names: Sequence[str] | None = None) -> dict[str, str]:
    fields = layout.split(line)
    return dict(zip(field_names(names or layout.names, len(fields)), fields, strict=True))


def addresses(layout: LogLayout, fields: dict[str, str]) -> list[str]:
    return [take(fields[name]) for name, take in layout.addresses.items()]


def instant(layout: LogLayout, fields: dict[str, str]) -> float:
    return layout.instant([fields[name] for name in layout.time])


def test_the_layouts_by_name_and_their_default_address_fields() -> None:
    assert list(LAYOUTS) == ["alb", "cloudfront", "vpc-flow", "s3-access"]
    assert all(name == layout.name for name, layout in LAYOUTS.items())
    assert [list(layout.addresses) for layout in LAYOUTS.values()] == [
        ["client:port", "target:port"],
        ["c-ip", "x-forwarded-for"],
        ["srcaddr", "dstaddr"],
        ["remote_ip"],
    ]
    assert [len(layout.names) for layout in LAYOUTS.values()] == [33, 33, 14, 27]
    assert all(set(layout.time) <= set(layout.names) for layout in LAYOUTS.values())


def test_fields_past_the_names_are_numbered_from_one() -> None:
    assert field_names(("a", "b"), 4) == ("a", "b", "field_3", "field_4")
    assert field_names(("a", "b", "c"), 2) == ("a", "b")


def test_quoted_fields_lose_their_quotes_and_an_open_quote_runs_to_the_end() -> None:
    assert split_quoted('a  "b c" "" d "e') == ["a", "b c", "", "d", "e"]
    assert split_quoted('x "y"z w') == ["x", "y", "z", "w"]


ALB_EXPECTED = [
    ("http", "192.168.131.39", "10.0.0.1", epoch(2018, 7, 2, 22, 23, 0, micro=186641)),
    ("https", "192.168.131.39", "10.0.0.1", epoch(2018, 7, 2, 22, 23, 0, micro=186641)),
    ("h2", "10.0.1.252", "10.0.0.66", epoch(2018, 7, 2, 22, 23, 0, micro=186641)),
    ("ws", "10.0.0.140", "10.0.1.192", epoch(2018, 7, 2, 22, 23, 0, micro=186641)),
    ("wss", "10.0.0.140", "10.0.0.171", epoch(2018, 7, 2, 22, 23, 0, micro=186641)),
    ("http", "192.168.131.39", "", epoch(2018, 11, 30, 22, 23, 0, micro=186641)),
    ("http", "192.168.131.39", "", epoch(2018, 11, 30, 22, 23, 0, micro=186641)),
]


@pytest.mark.parametrize(("line", "expected"), examples("alb.log", ALB_EXPECTED))
def test_alb_documented_entries(line: str, expected: tuple[str, str, str, float]) -> None:
    kind, client, target, when = expected
    fields = row(alb.LAYOUT, line)
    assert len(fields) == 29  # through classification_reason: the docs' examples predate conn_trace_id
    assert fields["type"] == kind
    assert addresses(alb.LAYOUT, fields) == [client, target]
    assert instant(alb.LAYOUT, fields) == when
    assert alb.LAYOUT.header(line) is None


def test_alb_quoted_fields_hold_their_spaces_and_lose_their_quotes() -> None:
    https, h2 = row(alb.LAYOUT, lines("alb.log")[1]), row(alb.LAYOUT, lines("alb.log")[2])
    assert https["request"] == "GET https://www.example.com:443/ HTTP/1.1"
    assert https["actions_executed"] == "authenticate,forward"
    assert https["target:port_list"] == "10.0.0.1:80"
    assert h2["redirect_url"] == "https://example.com:80/"
    assert row(alb.LAYOUT, lines("alb.log")[6])["error_reason"] == "LambdaInvalidResponse"


def test_alb_newer_fields_are_named_and_later_ones_numbered() -> None:
    line = lines("alb.log")[1] + ' TID_6b5f1c2e "-" "-" "-" 10.0.9.9 "new field"'
    fields = row(alb.LAYOUT, line)
    assert len(fields) == 35
    assert fields["conn_trace_id"] == "TID_6b5f1c2e"
    assert fields["request_transform_status"] == "-"
    assert (fields["field_34"], fields["field_35"]) == ("10.0.9.9", "new field")
    assert addresses(alb.LAYOUT, fields) == ["192.168.131.39", "10.0.0.1"]


@pytest.mark.parametrize(
    ("client", "address"),
    [
        # How ALB writes an IPv6 client (the docs show none): no brackets, the port after the last colon.
        ("2001:db8:85a3::8a2e:370:7334:2817", "2001:db8:85a3::8a2e:370:7334"),
        ("[2001:db8:85a3::8a2e:370:7334]:2817", "2001:db8:85a3::8a2e:370:7334"),
        ("::ffff:192.0.2.7:443", "::ffff:192.0.2.7"),
    ],
)
def test_alb_ipv6_clients(client: str, address: str) -> None:
    line = lines("alb.log")[0].replace("192.168.131.39:2817", client, 1)
    assert addresses(alb.LAYOUT, row(alb.LAYOUT, line)) == [address, "10.0.0.1"]


def test_alb_a_stray_quote_leaves_the_address_and_time_right() -> None:
    line = lines("alb.log")[0].replace('"curl/7.46.0"', '"curl/7.46.0 \\"x\\""', 1)
    fields = row(alb.LAYOUT, line)
    assert addresses(alb.LAYOUT, fields) == ["192.168.131.39", "10.0.0.1"]
    assert instant(alb.LAYOUT, fields) == epoch(2018, 7, 2, 22, 23, 0, micro=186641)


@pytest.mark.parametrize(
    "line",
    ["http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188", "", '"GET http://a/ HTTP/1.1"'],
)
def test_alb_a_line_too_short_for_client_port_is_refused(line: str) -> None:
    with pytest.raises(LayoutError, match=r"at least 4 fields \(through client:port\)"):
        alb.LAYOUT.split(line)


@pytest.mark.parametrize("text", ["2018-07-02 22:23:00.186641", "2018-07-02T22:23:00+02:00", "2018-13-02T22:23Z"])
def test_alb_a_garbled_time_is_refused(text: str) -> None:
    with pytest.raises(LayoutError, match="not an ISO 8601 UTC time"):
        alb.LAYOUT.instant([text])


@pytest.mark.parametrize("field", ["192.168.131.39", "192.168.131.39:http", ":2817"])
def test_alb_an_address_without_a_port_is_refused(field: str) -> None:
    with pytest.raises(LayoutError, match="is not an ip:port field"):
        alb.address(field)


CLOUDFRONT_EXPECTED = [
    ("192.0.2.100", epoch(2019, 12, 4, 21, 2, 31)),
    ("192.0.2.100", epoch(2019, 12, 4, 21, 2, 31)),
    ("192.0.2.100", epoch(2019, 12, 4, 21, 2, 31)),
    ("192.0.2.200", epoch(2019, 12, 13, 22, 36, 27)),
    ("192.0.2.200", epoch(2019, 12, 13, 22, 36, 26)),
    ("192.0.2.200", epoch(2019, 12, 13, 22, 37, 2)),
]


def test_cloudfront_headers_declare_the_documented_fields() -> None:
    version, declared, *data = lines("cloudfront.log")
    assert cloudfront.LAYOUT.header(version) == ()
    assert cloudfront.LAYOUT.header(declared) == cloudfront.NAMES
    assert cloudfront.LAYOUT.header("#Fields: date time c-ip") == ("date", "time", "c-ip")
    assert [cloudfront.LAYOUT.header(line) for line in data] == [None] * 6


@pytest.mark.parametrize(("line", "expected"), examples("cloudfront.log", CLOUDFRONT_EXPECTED, 2))
def test_cloudfront_documented_lines(line: str, expected: tuple[str, float]) -> None:
    fields = row(cloudfront.LAYOUT, line, cloudfront.LAYOUT.header(lines("cloudfront.log")[1]))
    assert len(fields) == 33
    assert addresses(cloudfront.LAYOUT, fields) == [expected[0], ""]
    assert instant(cloudfront.LAYOUT, fields) == expected[1]
    assert fields["cs(User-Agent)"].startswith(("Mozilla/5.0%20(Windows", "curl/7.55.1"))


@pytest.mark.parametrize(
    ("field", "address"),
    [("192.0.2.183", "192.0.2.183"), ("2001:0db8:85a3::7334,%20192.0.2.9", "2001:0db8:85a3::7334"), ("-", "")],
)
def test_cloudfront_forwarded_for_gives_its_first_address(field: str, address: str) -> None:
    assert cloudfront.LAYOUT.addresses["x-forwarded-for"](field) == address


def test_cloudfront_a_truncated_or_untabbed_line_is_refused() -> None:
    with pytest.raises(LayoutError, match=r"at least 5 tab-separated fields \(through c-ip\), this one has 3"):
        cloudfront.LAYOUT.split("2019-12-04\t21:02:31\tLAX1")
    with pytest.raises(LayoutError, match="this one has 1"):
        cloudfront.LAYOUT.split(lines("cloudfront.log")[2].replace("\t", " "))


@pytest.mark.parametrize(("date", "time"), [("2019-13-04", "21:02:31"), ("2019/12/04", "21:02:31"), ("-", "-")])
def test_cloudfront_a_garbled_date_or_time_is_refused(date: str, time: str) -> None:
    with pytest.raises(LayoutError, match="are not YYYY-MM-DD and HH:MM:SS"):
        cloudfront.LAYOUT.instant([date, time])


VPC_EXPECTED = [
    ("172.31.16.139", "172.31.16.21", epoch(2014, 12, 14, 4, 6, 50), "OK"),
    ("172.31.9.69", "172.31.9.12", epoch(2014, 12, 14, 4, 6, 50), "OK"),
    ("", "", epoch(2015, 5, 10, 18, 1, 16), "NODATA"),
    ("", "", epoch(2015, 5, 10, 18, 1, 16), "SKIPDATA"),
    (
        "2001:db8:1234:a100:8d6e:3477:df66:f105",
        "2001:db8:1234:a102:3304:8879:34cf:4071",
        epoch(2016, 10, 31, 11, 35, 8),
        "OK",
    ),
]


@pytest.mark.parametrize(("line", "expected"), examples("vpc_flow.log", VPC_EXPECTED, 1))
def test_vpc_flow_documented_records(line: str, expected: tuple[str, str, float, str]) -> None:
    names = vpc_flow.LAYOUT.header(lines("vpc_flow.log")[0])
    assert names == vpc_flow.NAMES
    assert vpc_flow.LAYOUT.header(line) is None
    fields = row(vpc_flow.LAYOUT, line, names)
    assert len(fields) == 14
    assert addresses(vpc_flow.LAYOUT, fields) == list(expected[:2])
    assert instant(vpc_flow.LAYOUT, fields) == expected[2]
    assert fields["log-status"] == expected[3]


def test_vpc_flow_custom_formats_are_named_by_their_header() -> None:
    tcp_flags = "version vpc-id subnet-id instance-id interface-id account-id type srcaddr dstaddr srcport dstport "
    tcp_flags += "pkt-srcaddr pkt-dstaddr protocol bytes packets start end action tcp-flags log-status"
    record = "3 vpc-abcdefab012345678 subnet-aaaaaaaa012345678 i-01234567890123456 eni-1235b8ca123456789 123456789010 "
    record += "IPv4 10.0.0.62 52.213.180.42 5001 43638  10.0.0.62 52.213.180.42 6 967 14 1566933133 1566933193 "
    record += "ACCEPT 19 OK"
    names = vpc_flow.LAYOUT.header(tcp_flags)
    assert names is not None
    assert len(names) == 21
    fields = row(vpc_flow.LAYOUT, record, names)  # two spaces in a row in the docs' example count as one
    assert addresses(vpc_flow.LAYOUT, fields) == ["10.0.0.62", "52.213.180.42"]
    assert instant(vpc_flow.LAYOUT, fields) == epoch(2019, 8, 27, 19, 12, 13)
    nat = "instance-id interface-id srcaddr dstaddr pkt-srcaddr pkt-dstaddr"  # a header need not start with version
    assert vpc_flow.LAYOUT.header(nat) == tuple(nat.split())
    for data in ("- eni-1235b8ca123456789 10.0.1.5 10.0.0.220 10.0.1.5 203.0.113.5", "i-0123 eni-1111 10.0.1.5"):
        assert vpc_flow.LAYOUT.header(data) is None


def test_vpc_flow_an_empty_line_or_a_garbled_start_is_refused() -> None:
    with pytest.raises(LayoutError, match="an empty VPC flow log line"):
        vpc_flow.LAYOUT.split("   ")
    for start in ("-", "14185300x0", "١٤١٨٥٣٠٠١٠", "-1418530010"):
        with pytest.raises(LayoutError, match="is not a time in Unix seconds"):
            vpc_flow.LAYOUT.instant([start])


S3_EXPECTED = [(27, epoch(2019, 2, 6, 0, 0, 38)), (27, epoch(2019, 2, 6, 0, 0, 38)), (24, epoch(2019, 2, 6, 0, 1, 57))]


@pytest.mark.parametrize(("line", "expected"), examples("s3_access.log", S3_EXPECTED))
def test_s3_access_documented_records(line: str, expected: tuple[int, float]) -> None:
    fields = row(s3_access.LAYOUT, line)
    assert len(fields) == expected[0]
    assert fields["time"] == line.split("[", 1)[1].split("]", 1)[0]
    assert addresses(s3_access.LAYOUT, fields) == ["192.0.2.3"]
    assert instant(s3_access.LAYOUT, fields) == expected[1]
    assert fields["user_agent"] == "S3Console/0.4"
    assert fields["request_uri"].startswith(("GET /amzn-s3-demo-bucket1?", "PUT /awsexamplebucket1/s3-dg.pdf"))


def test_s3_access_later_fields_and_unescaped_quotes() -> None:
    first = lines("s3_access.log")[0]
    fields = row(s3_access.LAYOUT, first + " later")
    assert (fields["acl_required"], fields["source_region"], fields["field_28"]) == ("Yes", "us-east-1", "later")
    quoted = row(s3_access.LAYOUT, first.replace("versioning HTTP", 'versioning" HTTP', 1))
    assert addresses(s3_access.LAYOUT, quoted) == ["192.0.2.3"]
    assert instant(s3_access.LAYOUT, quoted) == epoch(2019, 2, 6, 0, 0, 38)


@pytest.mark.parametrize(("month", "number"), [(name, n) for n, name in enumerate(s3_access.MONTH_NAMES, 1)])
def test_s3_access_months_and_offsets(month: str, number: int) -> None:
    assert s3_access.LAYOUT.instant([f"01/{month}/2020:12:00:00 +0000"]) == epoch(2020, number, 1, 12, 0, 0)
    assert s3_access.LAYOUT.instant([f"01/{month}/2020:12:00:00 +0130"]) == epoch(2020, number, 1, 10, 30, 0)
    assert s3_access.LAYOUT.instant([f"01/{month}/2020:12:00:00 -0500"]) == epoch(2020, number, 1, 17, 0, 0)


def test_s3_access_a_truncated_or_garbled_line_is_refused() -> None:
    first = lines("s3_access.log")[0]
    for truncated in (first[: first.index(" +0000]")], first[: first.index(" 192.0.2.3")], first.replace("[", "", 1)):
        with pytest.raises(LayoutError, match=r"starts with bucket_owner bucket \[time\] remote_ip"):
            s3_access.LAYOUT.split(truncated)
    for text in ("06/feb/2019:00:00:38 +0000", "31/Feb/2019:00:00:38 +0000", "06/Feb/2019:00:00:38", "2019-02-06"):
        with pytest.raises(LayoutError, match="is not a time such as 06/Feb/2019:00:00:38 \\+0000"):
            s3_access.LAYOUT.instant([text])
