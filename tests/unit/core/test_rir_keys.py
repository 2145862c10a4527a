"""A registry's delegated statistics read into a keyed table (``core.keyed.rir_keys`` through
``core.keyed.key_files``): detected by content as range folders detect it, each ``asn`` record one row an AS number
(its count expanded), the extended layout with ``opaque_id`` and the plain one without, available and reserved
records skipped, everything else of the file (version line, summaries, comments, ip records) holding no key, and
counts bounded by the keys a version may hold."""

from __future__ import annotations

import pytest

from fencepost.core.keyed.key_rows import KeyFileError
from tests.support.key_objects import read, rows_of

# In the layout of the RIR Statistics Exchange Format: version line, summaries, then records
# registry|cc|type|start|value|date|status|opaque-id (the extended files; the plain ones stop at status)
EXTENDED = b"""# delegated-apnic-extended-latest (a few lines of it)
2.3|apnic|20261128|7|19830613|20261127|+1000
apnic|*|asn|*|4|summary
apnic|*|ipv4|*|2|summary
apnic|*|ipv6|*|1|summary
apnic|JP|asn|173|1|20020801|allocated|A91A7381
apnic|AU|ipv4|1.0.0.0|256|20110811|assigned|A91872ED
apnic|CN|asn|4134|3|19970101|allocated|A92E1062
apnic||asn|7467|2||available|
apnic|ZZ|asn|23456|1||reserved|apnic
apnic|AU|ipv6|2001:200::|35|19990813|allocated|A91A7381
apnic|*|asn|131072|1|20070117|assigned|A9141DB0|e-stats
apnic|CN|ipv4|1.0.1.0|256|20110414|allocated|A92E1062
"""
PLAIN = b"""2|arin|1764201599|3|19700101|20261127|-0500
arin|*|asn|*|2|summary
arin|*|ipv4|*|1|summary
arin|US|asn|1|1|20010920|assigned
arin|US|ipv4|3.0.0.0|16777216|19880223|allocated
arin|CA|asn|7|2|19970101|allocated
"""


def test_an_extended_file_makes_one_row_an_as_number_with_its_opaque_id() -> None:
    table, problems, count = read("asn-registry/delegated-apnic-extended-latest", EXTENDED)
    assert (table.key, table.form, problems.count) == ("asn", "asn", 0)
    assert table.columns == ("registry", "country", "date", "status", "opaque_id")
    assert table.rows == {
        "173": ("apnic", "JP", "20020801", "allocated", "A91A7381"),  # a count of 1
        "4134": ("apnic", "CN", "19970101", "allocated", "A92E1062"),  # a count of 3: 4134, 4135, 4136
        "4135": ("apnic", "CN", "19970101", "allocated", "A92E1062"),
        "4136": ("apnic", "CN", "19970101", "allocated", "A92E1062"),
        "131072": ("apnic", "", "20070117", "assigned", "A9141DB0"),  # "*": no country; extensions left out
    }
    assert count == 5  # the keys read: available and reserved AS numbers are none
    assert table.row("AS4135") == table.row("4135")


def test_a_plain_file_has_no_opaque_id_column() -> None:
    table, problems, count = read("asn-registry/delegated-arin-latest", PLAIN)
    assert (table.columns, problems.count, count) == (("registry", "country", "date", "status"), 0, 3)
    assert table.rows == {
        "1": ("arin", "US", "20010920", "assigned"),
        "7": ("arin", "CA", "19970101", "allocated"),
        "8": ("arin", "CA", "19970101", "allocated"),
    }


def test_a_file_of_ip_records_only_holds_no_keys() -> None:
    only_ip = b"".join(line for line in EXTENDED.splitlines(keepends=True) if b"|asn|" not in line)
    table, problems, count = read("asn-registry/delegated-ip-only", only_ip)
    assert (table.rows, problems.count, count) == ({}, 0, 0)


def test_records_that_cannot_be_used_are_invalid_rows_with_their_lines() -> None:
    body = PLAIN + (
        b"arin|US|asn|x|1|20010920|assigned\n"  # line 7
        b"arin|US|asn|10|0|20010920|assigned\n"
        b"arin|US|asn|4294967295|2|20010920|assigned\n"
        b"arin|US|asn|11|1\n"
        b"arin|US|asn6|12|1|20010920|assigned\n"
        b"arin|US|asn|4294967295|1|20010920|assigned\n"  # the last AS number: a row
    )
    table, problems, count = read("asn-registry/delegated-arin-latest", body)
    assert [(p.line, p.reason) for p in problems.kept] == [
        (7, "start 'x' of an asn record is not an AS number (at most 4294967295)"),
        (8, "count 0 of an asn record: it holds no AS numbers"),
        (9, "2 AS numbers from 4294967295 run past AS 4294967295"),
        (10, "5 fields where a record has at least 7 (registry|cc|type|start|value|date|status)"),
        (11, "type 'asn6' is not ipv4, ipv6 or asn"),
    ]
    assert set(table.rows) == {"1", "7", "8", "4294967295"}
    assert count == 4 + 5


def test_a_count_that_would_cross_the_limit_fails_at_its_record_naming_the_limit() -> None:
    body = PLAIN + b"arin|US|asn|400000|5000000|20200101|allocated\n"
    with pytest.raises(KeyFileError) as raised:
        read("asn-registry/delegated-arin-latest", body, rows_of(most=100_000))
    assert (str(raised.value), raised.value.line) == ("more than 100000 keys", 7)
    # Within the limit alone, but past it with the keys read before: the same record fails
    with pytest.raises(KeyFileError) as raised:
        read("asn-registry/delegated-arin-latest", PLAIN + b"arin|US|asn|100|8|20200101|allocated\n", rows_of(most=10))
    assert (str(raised.value), raised.value.line) == ("more than 10 keys", 7)


def test_a_registrys_statistics_need_the_asn_key() -> None:
    with pytest.raises(KeyFileError) as raised:
        read("ids/delegated-apnic-extended-latest", EXTENDED, rows_of("id"))
    assert str(raised.value) == (
        'ids/delegated-apnic-extended-latest is a registry\'s delegated statistics, keyed by "asn": set "key": "asn"'
    )


def test_a_csv_table_and_an_as_names_list_are_not_taken_for_statistics() -> None:
    table, _, _ = read("t/table.csv", b"asn,registry\n13335,arin\n")
    assert (table.columns, table.rows) == (("registry",), {"13335": ("arin",)})
    table, _, _ = read("t/asn.txt", b"13335 CLOUDFLARENET - Cloudflare, Inc., US\n")
    assert table.columns == ("name", "country")


def test_objects_of_both_layouts_make_one_table_only_with_the_same_columns() -> None:
    rows = rows_of()
    read("asn-registry/delegated-apnic-extended-latest", EXTENDED, rows)
    read("asn-registry/delegated-ripencc-extended-latest", b"ripencc|SE|asn|1653|1|19930901|allocated|5b3c\n", rows)
    assert rows.table().rows["1653"] == ("ripencc", "SE", "19930901", "allocated", "5b3c")
    with pytest.raises(KeyFileError, match=r"has the columns \['asn', 'registry', 'country', 'date', 'status'\] but"):
        read("asn-registry/delegated-arin-latest", PLAIN, rows)
