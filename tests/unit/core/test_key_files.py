"""Reading a keyed folder's objects (``core.keyed.key_files``, ``core.keyed.key_rows``): CSV tables by their key
column, the CIDR Report's ``autnums.html`` and RIPE's ``asn.txt`` by their content, invalid rows counted with their
lines, and what cannot make one table refused naming where."""

from __future__ import annotations

import gzip
import time

import pytest

from fencepost.core.formats.base import FileError
from fencepost.core.keyed.key_rows import KeyFileError
from fencepost.core.keyed.keyed_table import KeyedTable
from tests.support.key_objects import read, rows_of

# The publishers' layouts (cited in core.sources.presets): an HTML head, then one anchor a line
AUTNUMS = b"""<html>
<head>
<title>AS Names</title>
</head>
<body>
<pre>
<a href="/cgi-bin/as-report?as=AS0&view=2.0">AS0     </a> -Reserved AS-, ZZ
<a href="/cgi-bin/as-report?as=AS7&view=2.0">AS7     </a> UK Defence &amp; Research Agency
<a href="/cgi-bin/as-report?as=AS3320&view=2.0">AS3320  </a> DTAG Internet service provider operations, DE
<a href="/cgi-bin/as-report?as=AS13335&view=2.0">AS13335 </a> CLOUDFLARENET - Cloudflare, Inc., US
</pre>
</body>
</html>
"""
ASN_TXT = b"1 LVLT-1 - Level 3 Parent, LLC, US\n3320 DTAG Internet service provider operations, DE\n\n"
ASN_TXT += b"13335 CLOUDFLARENET - Cloudflare, Inc., US\n64512 -Private Use AS-\n"


def test_autnums_html_is_read_by_its_content_names_before_the_last_country() -> None:
    table, problems, count = read("as-names/_fetched/autnums.html", AUTNUMS)
    assert (table.key, table.form, table.columns, count, problems.count) == ("asn", "asn", ("name", "country"), 4, 0)
    assert table.rows == {
        "0": ("-Reserved AS-", "ZZ"),
        "7": ("UK Defence & Research Agency", ""),  # no country: empty; HTML entities read as text
        "3320": ("DTAG Internet service provider operations", "DE"),
        "13335": ("CLOUDFLARENET - Cloudflare, Inc.", "US"),  # the commas of a name stay in it
    }
    assert table.row("AS13335") == table.row("13335") == ("CLOUDFLARENET - Cloudflare, Inc.", "US")


def test_ripe_asn_txt_is_read_by_its_content() -> None:
    table, problems, count = read("as-names/asn.txt", ASN_TXT)
    assert (count, problems.count, table.form) == (4, 0, "asn")
    assert table.rows["1"] == ("LVLT-1 - Level 3 Parent, LLC", "US")
    assert table.rows["64512"] == ("-Private Use AS-", "")


def test_a_stray_byte_in_a_name_is_replaced_not_fatal() -> None:
    table, _, _ = read("as-names/asn.txt", b"13335 CLOUDFLARE\xff, US\n")
    assert table.rows["13335"] == ("CLOUDFLARE\ufffd", "US")


def test_a_csv_keeps_every_other_column_in_order_and_counts_rows_without_a_key() -> None:
    body = b"name,id,tier\r\nalpha,1,gold\r\nbeta,,silver\r\n\r\ngamma,3\r\ndelta, 4 ,bronze\r\nalpha,1,gold\r\n"
    table, problems, count = read("t/table.csv", body, rows_of("id"))
    assert (table.key, table.form, table.columns) == ("id", "text", ("name", "tier"))
    assert table.rows == {"1": ("alpha", "gold"), "4": ("delta", "bronze")}  # the same row twice is one
    assert count == 5
    assert [(p.line, p.reason) for p in problems.kept] == [
        (3, "the row has no id"),
        (5, "the row has 2 cells; the header has 3"),
    ]


def test_a_csv_key_in_asn_form_refuses_what_is_no_as_number() -> None:
    body = b"asn,org\nAS13335,Cloudflare\n4294967296,too large\nx1,letters\n"
    table, problems, _ = read("t/orgs.csv", body, rows_of("asn", "asn"))
    assert table.rows == {"13335": ("Cloudflare",)}
    assert [p.line for p in problems.kept] == [3, 4]
    assert "is no AS number" in problems.kept[0].reason


def test_a_key_held_twice_with_different_values_fails_naming_both_places_across_objects() -> None:
    rows = rows_of()
    read("as-names/asn.txt", ASN_TXT, rows)
    with pytest.raises(KeyFileError) as raised:
        read("as-names/autnums.html", AUTNUMS.replace(b"Cloudflare, Inc.", b"Cloudflare Inc."), rows)
    error = raised.value
    assert (error.object_key, error.line) == ("as-names/autnums.html", 10)
    assert str(error) == (
        "asn '13335' is held twice with different values, at as-names/asn.txt line 4 and as-names/autnums.html "
        "line 10: a lookup could join either; remove one"
    )


def test_objects_of_one_folder_must_agree_on_their_columns() -> None:
    rows = rows_of("id")
    read("t/a.csv", b"id,name\n1,a\n", rows)
    with pytest.raises(KeyFileError, match=r"t/b.csv has the columns \['id', 'label'\] but t/a.csv has"):
        read("t/b.csv", b"id,label\n2,b\n", rows)


def test_more_keys_than_the_limit_fail_at_the_row_that_crosses_it() -> None:
    with pytest.raises(KeyFileError) as raised:
        read("as-names/asn.txt", ASN_TXT, rows_of(most=2))
    assert (str(raised.value), raised.value.line) == ("more than 2 keys", 4)


@pytest.mark.parametrize(
    ("key", "body", "says"),
    [
        ("id", b"name,label\na,b\n", "is neither a CSV table whose header names the key column 'id' nor an AS-names"),
        ("id", ASN_TXT, 'is an AS-names list, keyed by "asn": set "key": "asn"'),
        ("id", b"id,id\n1,2\n", "names the columns ['id'] twice in its header"),
    ],
)
def test_objects_that_are_no_keyed_table_fail_with_one_line(key: str, body: bytes, says: str) -> None:
    with pytest.raises(KeyFileError) as raised:
        read("t/x.csv", body, rows_of(key))
    assert says in str(raised.value)
    assert raised.value.object_key == "t/x.csv"


def test_a_csv_that_is_not_utf8_fails_at_its_line() -> None:
    with pytest.raises(FileError) as raised:
        read("t/x.csv", b"id,name\n1,caf\xe9\n", rows_of("id"))
    assert raised.value.line == 2


def test_the_table_encodes_and_decodes_to_the_rows_read() -> None:
    table, _, _ = read("as-names/autnums.html", AUTNUMS)
    data = table.encode()
    assert gzip.decompress(data).startswith(b'{"format":1')
    assert KeyedTable.decode(data) == table


def test_an_empty_object_holds_no_rows() -> None:
    table, problems, count = read("as-names/asn.txt", b"\n\n")
    assert (count, problems.count, table.rows) == (0, 0, {})


@pytest.mark.parametrize("name", ["as-names/asn.txt", "as-names/autnums.html"])
def test_a_long_line_of_spaces_in_an_as_names_list_is_read_in_linear_time(name: str) -> None:
    # A line within MAX_LINE_BYTES (1 MiB) whose name holds a long run of spaces before more text: a pattern that
    # backtracks over the run from every position takes minutes on such a line, past any loader's deadline
    padded = b"CLOUDFLARENET" + b" " * 60_000 + b"- Cloudflare, Inc., US"
    head = AUTNUMS.split(b"<a href", 1)[0] if name.endswith(".html") else b""
    line = b'<a href="/cgi-bin/as-report?as=AS13335&view=2.0">AS13335 </a> ' if name.endswith(".html") else b"13335 "
    started = time.monotonic()
    table, _, _ = read(name, head + line + padded + b"  \n")
    assert time.monotonic() - started < 5.0  # linear: milliseconds; quadratic: tens of seconds
    assert table.rows["13335"] == ("CLOUDFLARENET" + " " * 60_000 + "- Cloudflare, Inc.", "US")


def test_a_csv_saved_with_a_byte_order_mark_is_read_by_its_key_column() -> None:
    table, problems, count = read("t/excel.csv", b"\xef\xbb\xbfid,owner\r\n1,acme\r\n", rows_of("id"))
    assert (table.columns, table.rows, count, problems.count) == (("owner",), {"1": ("acme",)}, 1, 0)


def test_an_asn_txt_saved_with_a_byte_order_mark_is_read_as_one() -> None:
    table, _, count = read("as-names/asn.txt", b"\xef\xbb\xbf" + ASN_TXT)
    assert (count, table.rows["1"]) == (4, ("LVLT-1 - Level 3 Parent, LLC", "US"))


def test_a_csv_header_cell_left_empty_is_named_by_its_position_as_in_a_range_file() -> None:
    # An empty name could be joined by no keyed_joins (a joined column names something); two were refused as one
    # name held twice
    table, _, _ = read("t/x.csv", b"id,,label,\n1,a,b,c\n", rows_of("id"))
    assert (table.columns, table.rows) == (("col2", "label", "col4"), {"1": ("a", "b", "c")})


def test_an_as_names_list_after_a_csv_read_with_text_keys_is_refused_rather_than_read_as_text() -> None:
    # Which object comes first is the order of their names: read as text, the list's keys would miss every
    # value written AS13335, and the same folder with its objects named otherwise would answer differently
    rows = rows_of()
    read("as-names/additions.csv", b"asn,name,country\nAS64512,Internal,\n", rows)
    with pytest.raises(KeyFileError) as raised:
        read("as-names/autnums.html", AUTNUMS, rows)
    assert str(raised.value) == (
        "as-names/autnums.html is keyed by AS numbers (an AS-names list or a registry's statistics), but "
        'as-names/additions.csv before it was read with text keys: set "key_form" ("asn" or "text") in _settings.json'
    )
    after = rows_of()
    read("as-names/autnums.html", AUTNUMS, after)
    read("as-names/more.csv", b"asn,name,country\nAS64512,Internal,\n", after)
    assert after.table().row("64512") == ("Internal", "")  # a CSV after a list: its keys in the list's form
    chosen = rows_of(form="text")
    read("as-names/additions.csv", b"asn,name,country\nAS64512,Internal,\n", chosen)
    read("as-names/autnums.html", AUTNUMS, chosen)
    assert chosen.table().rows["AS64512"] == ("Internal", "")


def test_a_row_picks_the_columns_asked_in_their_order_and_none_for_a_column_the_table_lacks() -> None:
    table = KeyedTable("asn", "asn", ("name", "country", "registry"), {"13335": ("CLOUDFLARENET", "US", "arin")})
    row = table.row("AS13335")
    assert row is not None
    assert table.pick(row, ("registry", "missing", "name")) == ("arin", None, "CLOUDFLARENET")
    assert table.pick(row, ()) == ()
    decoded = KeyedTable.decode(table.encode())
    assert decoded == table  # the positions are derived, not compared or stored
    assert decoded.pick(row, ("country",)) == ("US",)
