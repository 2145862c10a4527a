"""Exports' lines (``core.versions.exports``) read back by the loader's own readers, and the MaxMind DB writer against
``maxminddb``."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import maxminddb
import pytest

from fencepost.core.space.addresses import V4, V6, parse_address
from fencepost.core.versions.exports import FORMATS, cidr_lines, csv_lines, encoded, kept_keys
from fencepost.core.versions.mmdb_export import mmdb_bytes
from tests.reading import collected, read_text


def _at(text: str) -> int:
    return parse_address(text)[1]


PIECES = [
    (V4, _at("1.0.0.0"), _at("1.0.0.255"), ["AU", "a, b"]),
    (V4, _at("1.0.4.0"), _at("1.0.9.255"), ["AU", 'say "hi"']),
    (V6, _at("2001:db8::"), _at("2001:db8::ffff"), ["FR", "tab\there"]),
]


def test_the_csv_export_reads_back_as_the_same_ranges() -> None:
    text = "".join(csv_lines(("country", "note"), PIECES))
    summary, collector, problems = read_text(text)
    assert (summary.header, summary.columns, problems.count) == (True, ("country", "note"), 0)
    assert collected(collector, V4) == [(s, e, tuple(v)) for f, s, e, v in PIECES if f == V4]
    assert collected(collector, V6) == [(s, e, tuple(v)) for f, s, e, v in PIECES if f == V6]


def test_the_cidr_export_is_the_fewest_networks_of_each_piece_with_its_values() -> None:
    lines = list(cidr_lines(("country", "note"), PIECES))
    assert lines == [
        "network\tcountry\tnote\n",
        "1.0.0.0/24\tAU\ta, b\n",
        '1.0.4.0/22\tAU\tsay "hi"\n',
        '1.0.8.0/23\tAU\tsay "hi"\n',
        "2001:db8::/112\tFR\ttab here\n",
    ]
    summary, collector, _ = read_text("".join(lines))
    assert (summary.columns, len(collector)) == (("country", "note"), 4)


def test_parts_are_at_least_the_part_size_but_the_last() -> None:
    lines = [f"{n:04d}\n" for n in range(1000)]  # 5 bytes each
    parts = list(encoded(lines, 1024))
    assert b"".join(parts) == "".join(lines).encode()
    assert all(len(part) >= 1024 for part in parts[:-1])
    assert 0 < len(parts[-1]) < 1024 + 5
    assert list(encoded([], 1024)) == [b""]  # an empty export is one empty part


def test_the_mmdb_answers_each_address_with_its_piece_and_network(tmp_path: Path) -> None:
    data = mmdb_bytes("geo", ("country", "note"), PIECES, has_ipv6=True, build_epoch=1_790_000_000)
    path = tmp_path / "geo.mmdb"
    path.write_bytes(data)
    reader = maxminddb.open_database(str(path))
    meta = reader.metadata()
    assert (meta.database_type, meta.build_epoch, meta.ip_version) == ("geo", 1_790_000_000, 6)
    assert reader.get_with_prefix_len("1.0.0.9") == ({"country": "AU", "note": "a, b"}, 24)
    assert reader.get_with_prefix_len("1.0.9.1") == ({"country": "AU", "note": 'say "hi"'}, 23)
    assert reader.get("1.0.10.0") is None
    assert reader.get_with_prefix_len("2001:db8::9") == ({"country": "FR", "note": "tab\there"}, 112)
    v4 = mmdb_bytes("v4", ("asn",), [(V4, 0, 255, ["13335"])], has_ipv6=False, build_epoch=1, numeric=("asn",))
    only = maxminddb.open_database(io.BytesIO(v4), mode=maxminddb.MODE_FD)
    assert (only.metadata().ip_version, only.get("0.0.0.7")) == (4, {"asn": 13335})


@pytest.mark.parametrize("form", [name for name in FORMATS if name != "parquet"])
def test_every_format_is_deleted_with_its_version(form: str) -> None:
    assert f"_exports/geo/3.{FORMATS[form].extension}" in kept_keys("geo", 3)
    assert f"_exports/geo/3.{FORMATS[form].extension}.building" in kept_keys("geo", 3)


def test_the_parquet_file_is_kept_in_its_tables_folder_and_deleted_with_its_version_and_its_marker() -> None:
    kept = kept_keys("geo", 3)
    assert "_tables/geo/version=3/geo-3.parquet" in kept
    assert "_tables/geo/version=3/_columns.json" in kept
    assert "_exports/geo/3.parquet.building" in kept  # the marker stays out of the table's folder
    assert not any(key.startswith("_tables/geo/version=3/") and key.endswith(".building") for key in kept)


FORMULAS = [
    (V4, _at("1.0.0.0"), _at("1.0.0.255"), ['=HYPERLINK("http://x.example","click")', "-33.86", "@SUM(A1)"]),
    (V4, _at("1.0.1.0"), _at("1.0.1.255"), ["+1+2", "-", "\t=1+1"]),
    (V4, _at("1.0.2.0"), _at("1.0.2.255"), ["plain", "1e-3", "a=b"]),
]


def test_cells_a_spreadsheet_would_run_are_written_as_text_and_numbers_are_left() -> None:
    rows = list(csv.reader(io.StringIO("".join(csv_lines(("a", "-b", "c"), FORMULAS)))))
    assert rows == [
        ["start", "end", "a", "'-b", "c"],
        ["1.0.0.0", "1.0.0.255", '\'=HYPERLINK("http://x.example","click")', "-33.86", "'@SUM(A1)"],
        ["1.0.1.0", "1.0.1.255", "'+1+2", "'-", "'\t=1+1"],
        ["1.0.2.0", "1.0.2.255", "plain", "1e-3", "a=b"],
    ]
    networks = [line.split("\t", 1)[1] for line in cidr_lines(("a",), FORMULAS[:2])]
    assert networks == [
        "a\n",
        '\'=HYPERLINK("http://x.example","click")\t-33.86\t\'@SUM(A1)\n',
        "'+1+2\t'-\t' =1+1\n",
    ]  # (a tab in a cell is a space)


def test_raw_cells_are_written_as_they_are() -> None:
    rows = list(csv.reader(io.StringIO("".join(csv_lines(("a", "b", "c"), FORMULAS, raw=True)))))
    assert rows[1][2:] == ['=HYPERLINK("http://x.example","click")', "-33.86", "@SUM(A1)"]
    assert list(cidr_lines(("a",), FORMULAS[:1], raw=True))[1].startswith("1.0.0.0/24\t=HYPERLINK(")
