"""The format matrix: one small fixture per layout and quirk that real range files have."""

from __future__ import annotations

import pytest

from fencepost.core.formats.base import FileError, FileSummary, Layout, ReadOptions
from fencepost.core.formats.choice import read_ranges
from fencepost.core.space.addresses import V4, V6
from fencepost.core.storage.items import MAX_ITEM_BYTES
from fencepost.core.versions.build import Collector, ProblemLog
from tests.reading import address as a
from tests.reading import collected as _ranges
from tests.reading import read_text


def test_the_designs_own_layout_with_padded_cells() -> None:
    summary, collector, problems = _read(
        "Netblock       , start      , end        , metadata\n"
        "1.0.0.0/24     , 16777216   , 16777471   , US\n"
        "1.0.1.0/24     , 16777472   , 16777727   , CN  \n"
    )
    assert summary.layout is Layout.NETBLOCK
    assert summary.columns == ("metadata",)
    assert _ranges(collector, V4) == [(a("1.0.0.0"), a("1.0.0.255"), ("US",)), (a("1.0.1.0"), a("1.0.1.255"), ("CN",))]
    assert problems.count == 0


def test_start_end_with_header() -> None:
    summary, collector, _ = _read("start,end,country\n1.0.0.0,1.0.0.255,AU\n")
    assert (summary.layout, summary.header, summary.columns) == (Layout.START_END, True, ("country",))
    assert _ranges(collector, V4) == [(a("1.0.0.0"), a("1.0.0.255"), ("AU",))]


def test_headerless_tab_separated_gets_stable_generated_names() -> None:
    summary, collector, _ = _read("1.1.1.0\t1.1.1.255\t13335\tUS\tCLOUDFLARENET\n")
    assert (summary.delimiter, summary.header) == ("\t", False)
    assert summary.columns == ("col3", "col4", "col5")
    assert _ranges(collector, V4)[0][2] == ("13335", "US", "CLOUDFLARENET")


def test_settings_name_the_columns_of_a_headerless_file() -> None:
    options = ReadOptions(columns=("asn", "country", "name"))
    summary, _, _ = _read("1.1.1.0,1.1.1.255,13335,US,CLOUDFLARENET\n", options)
    assert summary.columns == ("asn", "country", "name")


def test_settings_with_the_wrong_number_of_columns_fail() -> None:
    with pytest.raises(FileError, match="settings name 2 columns but the file has 3"):
        _read("1.1.1.0,1.1.1.255,13335,US,CLOUDFLARENET\n", ReadOptions(columns=("asn", "country")))


def test_integer_addresses_are_ipv4_when_the_largest_fits_32_bits() -> None:
    _, collector, _ = _read("16777216,16777471,AU\n4294967040,4294967295,ZZ\n")
    assert _ranges(collector, V4) == [(16777216, 16777471, ("AU",)), (4294967040, 4294967295, ("ZZ",))]


def test_integer_addresses_are_ipv6_when_one_is_larger() -> None:
    doc = a("2001:db8::")
    _, collector, _ = _read(f"16777216,16777471,low\n{doc},{doc + 255},doc\n")
    assert _ranges(collector, V4) == []
    assert _ranges(collector, V6) == [(16777216, 16777471, ("low",)), (doc, doc + 255, ("doc",))]


def test_quoted_cells_keep_their_commas() -> None:
    _, collector, _ = _read('"start","end","city"\n"1.0.0.0","1.0.0.255","Sydney, AU"\n')
    assert _ranges(collector, V4)[0][2] == ("Sydney, AU",)


def test_cidr_blocks_layout_of_maxmind() -> None:
    summary, collector, _ = _read(
        "network,geoname_id,registered_country_geoname_id,represented_country_geoname_id,is_anonymous_proxy\n"
        "1.0.0.0/24,2077456,2077456,,0\n"
        "2001:db8::/32,6252001,6252001,,0\n"
    )
    assert summary.layout is Layout.CIDR
    assert summary.columns[:2] == ("geoname_id", "registered_country_geoname_id")
    assert _ranges(collector, V4) == [(a("1.0.0.0"), a("1.0.0.255"), ("2077456", "2077456", "", "0"))]
    assert _ranges(collector, V6)[0][:2] == (a("2001:db8::"), a("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"))


def test_both_families_in_one_file() -> None:
    _, collector, _ = _read("1.0.0.0,1.0.0.255,a\n2001:db8::,2001:db8::ff,b\n")
    assert len(_ranges(collector, V4)) == len(_ranges(collector, V6)) == 1


def test_bom_and_crlf() -> None:
    summary, collector, _ = _read("\ufeffstart,end,country\r\n1.0.0.0,1.0.0.255,AU\r\n".encode())
    assert summary.columns == ("country",)
    assert _ranges(collector, V4)[0][2] == ("AU",)


MAPPED = 0xFFFF << 32  # ::ffff:0.0.0.0


def test_mapped_ipv6_ranges_are_read_as_the_ipv4_ranges_lookups_answer_them_as() -> None:
    # Given mapped ranges written as text, as a CIDR network, and beside a native IPv4 range
    summary, collector, problems = _read(
        "start,end,v\n::ffff:1.0.0.0,::ffff:1.0.0.255,text\n2.0.0.0,2.0.0.255,native\n::ffff:3.0.0.0,::ffff:3.0.0.9,x\n"
    )
    _, networks, _ = _read("network,v\n::ffff:4.0.0.0/120,cidr\n")
    # Then each is an IPv4 range, in row order
    assert (summary.rows, problems.count) == (3, 0)
    assert _ranges(collector, V6) == []
    assert _ranges(collector, V4) == [
        (a("1.0.0.0"), a("1.0.0.255"), ("text",)),
        (a("2.0.0.0"), a("2.0.0.255"), ("native",)),
        (a("3.0.0.0"), a("3.0.0.9"), ("x",)),
    ]
    assert _ranges(networks, V4) == [(a("4.0.0.0"), a("4.0.0.255"), ("cidr",))]


def test_mapped_integers_as_in_ip2locations_ipv6_files_are_ipv4() -> None:
    # IP2Location's IPv6 layout: IPv4 space as mapped integers, beside real IPv6 ranges
    summary, collector, _ = _read(
        "281470698520576,281470698520831,AU\n"  # ::ffff:1.0.0.0 - ::ffff:1.0.0.255
        "42540766411282592856903984951653826560,42540766411282592875350729025363378175,ZZ\n"  # 2001:db8::/64
    )
    assert summary.rows == 2
    assert _ranges(collector, V4) == [(a("1.0.0.0"), a("1.0.0.255"), ("AU",))]
    assert _ranges(collector, V6) == [(a("2001:db8::"), a("2001:db8::ffff:ffff:ffff:ffff"), ("ZZ",))]


def test_a_range_straddling_the_mapped_block_is_split_around_it() -> None:
    # Given one range from below ::ffff:0:0/96 to above it
    _, collector, _ = _read("::fffe:ffff:ff00,::1:0:0:ff,wide\n")
    # Then the parts below and above stay IPv6, the mapped block (all of it) is IPv4, all answered by the row
    assert _ranges(collector, V6) == [
        (a("::fffe:ffff:ff00"), MAPPED - 1, ("wide",)),
        (MAPPED + 2**32, a("::1:0:0:ff"), ("wide",)),
    ]
    assert _ranges(collector, V4) == [(0, 2**32 - 1, ("wide",))]
    # And a range that ends inside the block keeps only its part below it as IPv6
    _, collector, _ = _read("::fffe:ffff:ff00,::ffff:1.0.0.5,low\n")
    assert _ranges(collector, V6) == [(a("::fffe:ffff:ff00"), MAPPED - 1, ("low",))]
    assert _ranges(collector, V4) == [(0, a("1.0.0.5"), ("low",))]


def test_header_can_be_forced() -> None:
    summary, collector, _ = _read("a,b,c\n1.0.0.0,1.0.0.255,x\n", ReadOptions(header=True))
    assert summary.columns == ("c",)
    assert len(_ranges(collector, V4)) == 1
    summary, _, problems = _read("start,end,c\n1.0.0.0,1.0.0.255,x\n", ReadOptions(header=False))
    assert summary.columns == ("col3",)  # the first row is then data, and not valid data
    assert (summary.rows, problems.count, problems.kept[0].line) == (1, 1, 1)


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        ("1.0.0.x,1.0.0.255,a", "start '1.0.0.x' is not an IPv4 or IPv6 address"),
        ("1.0.0.255,1.0.0.0,a", "start 1.0.0.255 is after end 1.0.0.0"),
        ("1.0.0.0,2001:db8::,a", "different address families"),
        ("1.0.0.0,1.0.0.255", "2 columns where the file has 3"),
        ("1.0.0.0,1.0.0.255,a,b", "4 columns where the file has 3"),
        ("01.0.0.0,1.0.0.255,a", "not an IPv4 or IPv6 address"),
        ("1.0.0.0,16777471,a", "written differently"),
        ("16777216,16777471,a", "integer and text addresses are mixed"),
        ("1.0.0.0,1.0.0.255," + "x" * MAX_ITEM_BYTES, "does not fit a 400 KB DynamoDB item"),
    ],
)
def test_invalid_rows_are_problems_with_line_and_reason(row: str, reason: str) -> None:
    summary, collector, problems = _read(f"start,end,v\n1.2.3.0,1.2.3.255,ok\n{row}\n9.9.9.0,9.9.9.255,ok\n")
    assert summary.rows == 2
    assert len(_ranges(collector, V4)) == 2
    assert problems.count == 1
    problem = problems.kept[0]
    assert (problem.object, problem.line) == ("f.csv", 3)
    assert reason in problem.reason


def test_cidr_with_host_bits_is_a_problem() -> None:
    _, _, problems = _read("network,v\n1.0.0.1/24,a\n1.0.1.0/24,b\n")
    assert problems.count == 1
    assert "host bits" in problems.kept[0].reason


def test_a_line_beyond_the_field_limit_is_a_problem() -> None:
    _, collector, problems = _read(
        "1.0.0.0,1.0.0.255,a\n1.0.1.0,1.0.1.255," + "x" * (2 << 20) + "\n1.0.2.0,1.0.2.255,c\n"
    )
    assert problems.count == 1
    assert problems.kept[0].line == 2
    assert len(_ranges(collector, V4)) == 2


@pytest.mark.parametrize(
    ("data", "line", "reason"),
    [
        (b"", None, "empty"),
        (b"\n\n", None, "empty"),
        (b"start,end,country\n", None, "header but no ranges"),
        (b"start,end,country\n1.0.0.0,1.0.0.255,Z\xfcrich\n", 2, "not UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", 1, "not UTF-8"),
        (b"1.0.0.0,1.0.0.255,a\x00b\n", 1, "NUL"),
        (b"start,end,a,a\n1.0.0.0,1.0.0.255,x,y\n", 1, "duplicate column name"),
        (b"16777216\n", 1, "needs at least 2 columns"),  # one bare address is a list (Layout.LIST)
    ],
)
def test_unreadable_files_fail_with_the_line_and_reason(data: bytes, line: int | None, reason: str) -> None:
    with pytest.raises(FileError) as raised:
        _read(data)
    assert raised.value.line == line
    assert reason in raised.value.reason


def test_metadata_values_are_interned() -> None:
    _, collector, _ = _read("1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.1.255,AU\n")
    values = collector.families[V4].values
    assert values[0] is values[1]


def test_item_size_follows_dynamodbs_rules() -> None:
    from fencepost.core.storage.items import item_bytes

    # PK "ab" (2+2), SK 12345 (2 + 3 digit-pairs+1 = 2+4), "d" list of one "xyz" (1 + 3 + 1 + 3)
    item = {"PK": {"S": "ab"}, "SK": {"N": "12345"}, "d": {"L": [{"S": "xyz"}]}}
    assert item_bytes(item) == (2 + 2) + (2 + 4) + (1 + 3 + 1 + 3)


def test_a_file_whose_rows_are_all_unreadable_says_so() -> None:
    collector, problems = Collector(), ProblemLog()
    data = b"start,end,country\n1.0.0.0,1.0.0.255," + b"x" * (2 << 20) + b"\n"
    with pytest.raises(FileError, match=r"none of the file's rows could be read \(1 unreadable\)"):
        read_ranges("f.csv", data.splitlines(keepends=True), ReadOptions(), collector, problems)
    assert (problems.count, problems.kept[0].line) == (1, 2)


HUGE = "9" * 5000  # Python's int() refuses strings of over 4,300 digits with a plain ValueError


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (f"16777216,{HUGE},AU\n16777472,16777727,CN\n", "larger than any IPv6 address"),
        (f"{HUGE},{HUGE},AU\n16777472,16777727,CN\n", "larger than any IPv6 address"),
        (f"network,country\n1.0.0.0/{HUGE},AU\n1.0.1.0/24,CN\n", "prefix longer than"),
    ],
    ids=["a huge end", "a huge start and end", "a huge prefix"],
)
def test_numbers_too_long_to_parse_are_row_problems(text: str, reason: str) -> None:
    _, collector, problems = _read(text)
    assert problems.count == 1
    (problem,) = problems.kept
    assert (problem.line, reason in problem.reason) == (1 if "network" not in text else 2, True)
    assert len(problem.reason) < 200
    assert len(collector) == 1  # the other row loads


def test_a_settings_number_too_long_to_parse_is_a_folder_error() -> None:
    from fencepost.core.folders.settings_file import FolderSettings
    from fencepost.core.storage.objects import FolderError

    with pytest.raises(FolderError, match="not valid JSON"):
        FolderSettings.parse(b'{"max_invalid_rows": ' + HUGE.encode() + b"}", "geo/_settings.json")


def _read(text: str | bytes, options: ReadOptions | None = None) -> tuple[FileSummary, Collector, ProblemLog]:
    return read_text(text, options, "f.csv")
