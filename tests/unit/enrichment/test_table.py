"""A version's arrays (``enrichment.table``) hold exactly the pieces and rows of the build they were written from,
IPv4 and IPv6, whether made from the build or read back from its gzip table file; a damaged table file is refused
with ``TableError``; and ``TableStore`` answers the lookup's Query as the loader's own items answer it."""

from __future__ import annotations

import gzip
import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from fencepost.core.space.addresses import TOP, V4, V6, parse_address
from fencepost.core.storage.items import Hit
from fencepost.core.storage.table_files import table_lines
from fencepost.enrichment.table import TableError, TableStore, VersionTable
from fencepost.loading.local_files import LocalBuild, build_files
from tests.fakes.ranges import MemoryStore
from tests.support import SMALL_FILE, read_tsv

# Nested and overlapping ranges, IPv6 bounds whose low bytes are zero, and an IPv4-mapped range (stored as IPv4).
EXTRA = [
    ["2001:db8::", "2001:db8::ffff", "64496", "ZZ", "outer"],
    ["2001:db8::100", "2001:db8::1ff", "64497", "ZZ", "inner"],
    ["2001:db8:1::", "2001:db8:1:ffff:ffff:ffff:ffff:ffff", "64498", "ZZ", "a /48"],
    ["2001:db8:1:8000::", "2001:db8:2::ffff", "64499", "ZZ", "overlaps it"],
    ["2c0f:ff00::", "2c0f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "64500", "ZA", "to a /24's end"],
    ["fff0::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "64504", "ZZ", "the last"],
    ["::ffff:198.51.100.0", "::ffff:198.51.100.255", "64501", "ZZ", "mapped"],
    ["1.1.1.128", "1.1.1.191", "64502", "AU", "nested in 1.1.1.0/24"],
    ["8.8.8.200", "8.8.9.10", "64503", "US", "overlaps 8.8.8.0/24"],
]
# The IPv6 pieces EXTRA's rows flatten into, worked out by hand: (start, end, description).
V6_PIECES = [
    ("2001:db8::", "2001:db8::ff", "outer"),
    ("2001:db8::100", "2001:db8::1ff", "inner"),
    ("2001:db8::200", "2001:db8::ffff", "outer"),
    ("2001:db8:1::", "2001:db8:1:7fff:ffff:ffff:ffff:ffff", "a /48"),
    ("2001:db8:1:8000::", "2001:db8:2::ffff", "overlaps it"),
    ("2c0f:ff00::", "2c0f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "to a /24's end"),
    ("fff0::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "the last"),
]


def _int(text: str) -> int:
    return parse_address(text)[1]


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> LocalBuild:
    path = tmp_path_factory.mktemp("table") / "asn.tsv"
    path.write_text("".join("\t".join(row) + "\n" for row in [*read_tsv(SMALL_FILE), *EXTRA]))
    return build_files([path], "asn", 1)


def _table(build: LocalBuild) -> VersionTable:
    return VersionTable.of_build(build.flat.families, build.flat.pieces, build.read.columns)


def _lines(build: LocalBuild) -> bytes:
    return "".join(table_lines(build.flat.families, build.flat.pieces, build.read.columns)).encode()


def _holds_the_build(table: VersionTable, build: LocalBuild) -> None:
    assert table.columns == ("col3", "col4", "col5")
    for family in (V4, V6):
        pieces, ranges, arrays = build.flat.pieces[family], build.flat.families[family], table.families[family]
        assert len(arrays) == len(pieces) > 0
        assert [arrays.span(index) for index in range(len(arrays))] == list(
            zip(pieces.starts, pieces.ends, strict=True)
        )
        assert [arrays.values[int(row)] for row in arrays.rows] == [ranges.values[s] for s in pieces.sources]
        rows = arrays.rows.tolist()
        spans = [(arrays.range_starts[row], arrays.range_ends[row]) for row in rows]
        expected = [(ranges.starts[source], ranges.ends[source]) for source in pieces.sources]
        assert [(_bound(family, a), _bound(family, b)) for a, b in spans] == expected


def _bound(family: int, value: Any) -> int:
    """A bound as the int it stands for, read independently of the module: S16 items lose trailing NULs."""
    if family == V4:
        return int(value)
    assert isinstance(value, bytes)
    return int.from_bytes(value + bytes(16 - len(value)), "big")


def test_the_arrays_hold_the_builds_pieces_and_rows(build: LocalBuild) -> None:
    _holds_the_build(_table(build), build)


def test_the_gzip_table_file_reads_as_the_build(build: LocalBuild) -> None:
    table = VersionTable.read(gzip.compress(_lines(build)))
    _holds_the_build(table, build)
    assert table.aliases == ()


def test_ipv6_pieces_with_zero_low_bytes(build: LocalBuild) -> None:
    six = _table(build).families[V6]
    assert [six.span(index) for index in range(len(six))] == [(_int(a), _int(b)) for a, b, _ in V6_PIECES]
    assert [six.values[int(row)][2] for row in six.rows] == [name for _, _, name in V6_PIECES]
    assert six.starts.tobytes()[:16] == bytes.fromhex("20010db8") + bytes(12)
    first = six.hit(0)
    assert first == Hit(
        _int("2001:db8::"),
        _int("2001:db8::ff"),
        ["64496", "ZZ", "outer"],
        "2001:db8::",
        "2001:db8::ff",
        ("2001:db8::", "2001:db8::ffff"),
        None,  # the next piece follows at once: no gap
    )
    cut = six.hit(3)
    assert (cut.start_text, cut.end_text, cut.range_texts) == (
        "2001:db8:1::",
        "2001:db8:1:7fff:ffff:ffff:ffff:ffff",
        ("2001:db8:1::", "2001:db8:1:ffff:ffff:ffff:ffff:ffff"),
    )
    assert six.hit(4).gap_end == _int("2c0f:feff:ffff:ffff:ffff:ffff:ffff:ffff")
    assert six.hit(5).gap_end == _int("ffef:ffff:ffff:ffff:ffff:ffff:ffff:ffff")
    last = six.hit(6)
    assert (last.end, last.end_text, last.gap_end, last.range_texts) == (
        TOP[V6],
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        None,
        None,
    )


def test_the_mapped_range_is_ipv4(build: LocalBuild) -> None:
    four = _table(build).families[V4]
    spans = [four.span(index) for index in range(len(four))]
    index = spans.index((_int("198.51.100.0"), _int("198.51.100.255")))
    assert four.values[int(four.rows[index])] == ("64501", "ZZ", "mapped")
    assert spans[spans.index((_int("1.1.1.0"), _int("1.1.1.127"))) + 1] == (_int("1.1.1.128"), _int("1.1.1.191"))


def _damaged(data: bytes) -> dict[str, bytes]:
    header_end = data.index(b"\n") + 1
    first_piece_end = data.index(b"\n", header_end) + 1
    last_row = data.rindex(b"\n", 0, len(data) - 1) + 1
    return {
        "not gzip": data,
        "another format": gzip.compress(data.replace(b"fencepost-table/1", b"fencepost-table/9", 1)),
        "no header": gzip.compress(data[header_end:]),
        "header only": gzip.compress(data[:header_end]),
        "pieces cut in a line": gzip.compress(data[: first_piece_end + 10]),
        "pieces cut at a line": gzip.compress(data[:first_piece_end]),
        "rows cut": gzip.compress(data[: last_row + 12]),
        "a row missing": gzip.compress(data[:last_row]),
        "a piece not hex": gzip.compress(data[:header_end] + b"0g" + data[header_end + 2 :]),
        "a piece in capitals": gzip.compress(
            data[:header_end] + data[header_end:first_piece_end].upper() + data[first_piece_end:]
        ),
        "a row not hex": gzip.compress(data[:last_row] + b"z" + data[last_row + 1 :]),
        "values not JSON": gzip.compress(data[:-3] + b"\n"),
        "not UTF-8": gzip.compress(data[:-3] + b"\xff]\n"),
        "gzip cut short": gzip.compress(data)[:-12],
        "gzip damaged": _flip(gzip.compress(data), 30),
    }


def _flip(body: bytes, at: int) -> bytes:
    return body[:at] + bytes([body[at] ^ 0xFF]) + body[at + 1 :]


@pytest.mark.parametrize(
    "damage",
    ["not gzip", "another format", "no header", "header only", "pieces cut in a line", "pieces cut at a line",
     "rows cut", "a row missing", "a piece not hex", "a piece in capitals", "a row not hex", "values not JSON",
     "not UTF-8", "gzip cut short", "gzip damaged"],
)  # fmt: skip
def test_a_damaged_table_file_is_refused(build: LocalBuild, damage: str) -> None:
    with pytest.raises(TableError):
        VersionTable.read(_damaged(_lines(build))[damage])


def _addresses(build: LocalBuild, family: int, count: int) -> list[int]:
    """Piece edges and their neighbours, and random addresses anywhere."""
    chosen = random.Random(family)
    pieces = build.flat.pieces[family]
    edges = [
        edge + step for s, e in zip(pieces.starts, pieces.ends, strict=True) for edge in (s, e) for step in (-1, 0, 1)
    ]
    drawn = [chosen.getrandbits(32 if family == V4 else 128) for _ in range(count)]
    return sorted({address for address in [0, TOP[family], *edges, *drawn] if 0 <= address <= TOP[family]})


def test_the_store_finds_what_the_loaders_items_find(build: LocalBuild) -> None:
    memory = MemoryStore()
    info = memory.publish("asn", 1, build.flat.families, build.read.columns)
    store = TableStore(_table(build))
    asked = found = 0
    for family in (V4, V6):
        for address in _addresses(build, family, 3000):
            probe = info.directories[family].probe(address)
            if probe is None:
                assert store.table.families[family].below(_bounds(family, address))[0] == -1
                continue
            expected = memory.find("asn", 1, probe)
            assert store.find("asn", 1, probe) == expected, (family, address)
            asked += 1
            found += expected is not None and expected.start <= address <= expected.end
    assert asked > 10_000, asked
    assert found > 3_000, found


def _bounds(family: int, address: int) -> npt.NDArray[Any]:
    if family == V4:
        return np.array([address], dtype=np.uint32)
    return np.array([address.to_bytes(16, "big")], dtype="S16")
