"""The one place a format is chosen (``core.formats.choice``): by key, then by the first line, then the columns."""

from __future__ import annotations

import pytest

from fencepost.core.formats import choice, linefiles
from fencepost.core.formats.base import FileError, Layout, ReadOptions
from fencepost.core.formats.cells import RowError
from fencepost.core.space.addresses import V4
from tests.reading import address, collected, read_text


@pytest.mark.parametrize(
    ("key", "whole"),
    [
        ("geo/City.mmdb", True),
        ("geo/City.MMDB.gz", True),
        ("geo/GeoLite2-City_20260101.tar.gz", True),
        ("geo/dump.tgz", True),
        ("geo/blocks.csv", False),
        ("geo/blocks.csv.gz", False),  # gzip text: unpacked by its magic bytes, read by lines
        ("geo/firehol_level1.netset", False),
        ("geo/mmdb.csv", False),
    ],
)
def test_the_key_chooses_whole_or_lines(key: str, whole: bool) -> None:
    assert choice.reads_whole(key) is whole


def _dashed(line: str) -> tuple[int, int, int, tuple[str, ...]] | None:
    if line.startswith("#"):
        return None  # a format skips its own comments
    low, _, high = line.strip().partition(" - ")
    if not high:
        raise RowError("no ' - ' between the addresses")
    return V4, address(low), address(high), ()


DASHED = linefiles.LineFormat(Layout.LIST, lambda line: " - " in line, _dashed, "-", ())


def test_a_format_listed_in_line_formats_reads_the_files_with_its_signature(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "# ranges\n1.0.0.0 - 1.0.0.255\n2.0.0.0 - 2.0.1.255\nnot a range\n"
    with pytest.raises(FileError, match="needs at least 2 columns"):  # the column layouts cannot read it
        read_text(text)
    monkeypatch.setattr(choice, "LINE_FORMATS", (*choice.LINE_FORMATS, DASHED))
    summary, collector, problems = read_text(text)
    assert (summary.rows, summary.delimiter) == (2, "-")
    assert collected(collector, V4) == [(address("1.0.0.0"), address("1.0.0.255"), ()), (2 << 24, (2 << 24) + 511, ())]
    assert [(p.line, p.reason) for p in problems.kept] == [(4, "no ' - ' between the addresses")]
    forced, _, _ = read_text("start,end\n" + text, ReadOptions(header=True))  # a forced header skips line formats
    assert forced.layout is Layout.START_END


def test_the_first_format_whose_signature_matches_wins() -> None:
    assert [fmt.layout for fmt in choice.LINE_FORMATS] == [
        Layout.RIR,
        Layout.LIST,
        Layout.DROP_JSON,
        Layout.GEOFEED,
        Layout.PFX2AS,
    ]
    head: list[str] = []
    rir = "2|apnic|20260101|1|19830613|20260101|+1000\n"
    assert choice.line_format(iter(["# c\n", "\n", rir]), head) is linefiles.RIR
    assert head == ["# c\n", "\n", rir]  # every line read is kept, to be read again
    assert choice.line_format(iter(["; c\n", "1.0.0.0/24 ; SBL1\n"]), []) is linefiles.LIST
    assert choice.line_format(iter(['{"cidr":"1.0.0.0/24","sblid":"SBL1"}\n']), []) is linefiles.DROP_JSON
    assert choice.line_format(iter(['{"network":"1.0.0.0/24"}\n']), []) is None
    assert choice.line_format(iter(["# geofeed\n", "192.0.2.0/24,US,US-AL,,\n"]), []) is linefiles.GEOFEED
    assert choice.line_format(iter(["1.0.0.0\t24\t13335\n"]), []) is linefiles.PFX2AS
    assert choice.line_format(iter(["start,end,cc\n"]), []) is None
