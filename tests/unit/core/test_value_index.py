"""The value index (``core.versions.value_index``) against a brute-force grouping of the flattened pieces."""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.core.space.addresses import FAMILIES, TOP, V4, V6
from fencepost.core.storage.members import MEMBER_LINES, lines_from
from fencepost.core.versions.build import Collector, FamilyRanges, Pieces
from fencepost.core.versions.value_index import Directory, build_index, directory_bytes, parse_line

Row = tuple[int, int, int, str, str]  # family, start, end, country, asn
Found = dict[str, list[tuple[int, int, int]]]  # value: its pieces' family, start, end


def _version(rows: list[Row]) -> tuple[dict[int, FamilyRanges], dict[int, Pieces]]:
    collector = Collector()
    for family, start, end, country, asn in rows:
        collector.add(family, start, end, (country, asn))
    families = collector.families
    return families, {family: families[family].pieces() for family in FAMILIES}


def _brute(families: dict[int, FamilyRanges], pieces: dict[int, Pieces], at: int) -> Found:
    grouped: Found = {}
    for family in FAMILIES:
        for start, end, source in pieces[family]:
            grouped.setdefault(families[family].values[source][at], []).append((family, start, end))
    return {value: sorted(found) for value, found in sorted(grouped.items())}


def _reader(members: list[bytes]) -> Callable[[int], Callable[[int], bytes]]:
    """Read functions over the joined members, from an offset."""
    data = b"".join(members)

    def at(offset: int) -> Callable[[int], bytes]:
        position = offset

        def read(size: int) -> bytes:
            nonlocal position
            chunk = data[position : position + size]
            position += len(chunk)
            return chunk

        return read

    return at


rows_strategy = st.lists(
    st.tuples(
        st.sampled_from(FAMILIES),
        st.integers(0, 5000),
        st.integers(0, 300),
        st.sampled_from(["AU", "US", "", "DE", "ü"]),
        st.sampled_from(["AS1", "AS2", "AS3"]),
    ),
    max_size=80,
)


@settings(max_examples=150, deadline=None)
@given(rows_strategy)
def test_every_piece_is_indexed_under_its_value_in_address_order(raw: list[tuple[int, int, int, str, str]]) -> None:
    rows = [(f, s if f == V4 else s << 60, (s + n) if f == V4 else ((s + n) << 60) + 5, c, a) for f, s, n, c, a in raw]
    families, pieces = _version(rows)
    members, directory = build_index(families, pieces, ("country", "asn"), "country")
    expected = _brute(families, pieces, 0)
    lines = gzip.decompress(b"".join(members)).decode().splitlines()
    assert directory.lines == len(lines) == sum(len(found) for found in expected.values())
    assert [stats.value for stats in directory.values] == list(expected)
    for stats in directory.values:
        found = [parse_line(line.encode())[:3] for line in lines[stats.first : stats.first + stats.pieces]]
        assert found == expected[stats.value]
        assert stats.ipv4_addresses == sum(end - start + 1 for family, start, end in found if family == V4)
        sixty_fours = {
            block for family, start, end in found if family == V6 for block in range(start >> 64, (end >> 64) + 1)
        }
        assert stats.ipv6_64s == len(sixty_fours)
        body = json.loads(lines[stats.first].split(" ", 3)[3])
        assert body["data"]["country"] == stats.value
    assert Directory.parse(gzip.decompress(directory_bytes(directory)).splitlines()) == directory


def test_a_value_is_read_from_its_member_and_seek_skips_at_most_one_member() -> None:
    rng = random.Random(7)
    rows = [(V4, n * 256, n * 256 + 255, rng.choice("ABC"), "x") for n in range(5 * MEMBER_LINES)]
    families, pieces = _version(rows)
    members, directory = build_index(families, pieces, ("c", "asn"), "c")
    assert len(directory.offsets) == 5
    at = _reader(members)
    for stats in directory.values:
        first = directory.position(stats.first)
        read = lines_from(at(first.offset), first)
        got = [parse_line(line)[:3] for _, (_, line) in zip(range(stats.pieces), read, strict=False)]
        expected = [(V4, s, e) for f, s, e, value, _ in rows if value == stats.value]
        assert got == expected
        target = expected[len(expected) * 3 // 4][1] + 1  # inside a piece three quarters along the value
        line = directory.seek(stats, V4, target)
        assert stats.first <= line <= stats.first + expected.index(next(p for p in expected if p[2] >= target))
        skipped = expected.index(next(p for p in expected if p[2] >= target)) - (line - stats.first)
        assert 0 <= skipped < MEMBER_LINES
    assert directory.find("B") == directory.values[1]
    assert directory.find("D") is None
    assert directory.find("") is None


def test_an_ipv6_piece_inside_one_64_counts_it_once() -> None:
    base = 0x20010DB8 << 96
    rows = [
        (V6, base, base + 9, "x", "a"),
        (V6, base + 10, base + 20, "x", "b"),
        (V6, base + (1 << 64), TOP[V6], "y", "b"),
    ]
    families, pieces = _version(rows)
    _, directory = build_index(families, pieces, ("c", "asn"), "c")
    x, y = directory.values
    assert (x.value, x.pieces, x.ipv6_64s, x.ipv4_addresses) == ("x", 2, 1, 0)
    assert (y.value, y.ipv6_64s) == ("y", (TOP[V6] >> 64) - ((base >> 64) + 1) + 1)
