"""Properties of the table and its join: for any ranges (very wide ones among them: ``0.0.0.0/1``, ``::/1``), the
bucketed join over the Parquet table answers each address as a naive ``BETWEEN`` join over the pieces does; the
SQL's address macros read a text as ``parse_address`` does; ``ip_network`` is the piece's one CIDR block or null."""

from __future__ import annotations

import ipaddress
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fencepost.core.space.addresses import (
    BITS,
    MAPPED_FIRST,
    TOP,
    V4,
    V6,
    AddressError,
    format_address,
    parse_address,
    unmapped,
)
from fencepost.core.space.networks import cidrs
from fencepost.core.versions.build import FamilyRanges
from fencepost.enrichment.table import VersionTable
from fencepost.tables.buckets import MAX_COPIES
from fencepost.tables.parquet_table import networks, wide, write_table
from tests.support.tables import connection, joined

CON = connection()


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


@st.composite
def spans(draw: st.DrawFn, family: int) -> tuple[int, int]:
    """A range of any width (1 to half the family's space), aligned on its width or not."""
    bits = BITS[family]
    width = draw(st.integers(0, bits - 1))
    start = draw(st.integers(0, TOP[family]))
    if draw(st.booleans()):
        start = start >> width << width
    size = (1 << width) + draw(st.sampled_from([0, 0, -1, 1, 1 << max(0, width - 3)]))
    return start, min(TOP[family], start + max(1, size) - 1)


HALVES = {family: [(0, TOP[family] >> 1), ((TOP[family] >> 1) + 1, TOP[family])] for family in (V4, V6)}


@st.composite
def versions(draw: st.DrawFn) -> VersionTable:
    families = {family: FamilyRanges(family) for family in (V4, V6)}
    named = 0
    for family in (V4, V6):
        drawn = draw(st.lists(spans(family), max_size=12))
        drawn += draw(st.lists(st.sampled_from(HALVES[family]), max_size=1))  # 0.0.0.0/1, ::/1, 128.0.0.0/1, 8000::/1
        for start, end in drawn:
            for part_family, low, high in unmapped(family, start, end):  # as the loader stores mapped ranges
                families[part_family].add(low, high, (f"r{named}",))
            named += 1
    pieces = {family: ranges.pieces() for family, ranges in families.items()}
    return VersionTable.of_build(families, pieces, ("name",))


def _bound(family: int, value: int) -> bytes:
    return (MAPPED_FIRST + value if family == V4 else value).to_bytes(16, "big")


def _probes(table: VersionTable, extra: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Each piece's first and last address and those either side, and ``extra``."""
    found = list(extra)
    for family, pieces in table.families.items():
        for index in range(len(pieces)):
            start, end = pieces.span(index)
            found += [(family, max(0, start - 1)), (family, start), (family, end), (family, min(TOP[family], end + 1))]
    return found


def _naive(texts: list[str], table: VersionTable) -> list[str | None]:
    """Each text's piece's name, by a ``BETWEEN`` join with every piece (no bucket)."""
    rows = [
        (_bound(family, start), _bound(family, end), pieces.values[int(pieces.rows[index])][0])
        for family, pieces in table.families.items()
        for index in range(len(pieces))
        for start, end in [pieces.span(index)]
    ]
    starts, ends, names = zip(*rows, strict=True) if rows else ((), (), ())
    CON.register(
        "naive_pieces",
        pa.table(
            {"s": list(starts), "e": list(ends), "name": list(names)},
            pa.schema([("s", pa.binary()), ("e", pa.binary()), ("name", pa.string())]),
        ),
    )
    bins = [_bound(*parse_address(text)) for text in texts]
    CON.register("naive_addresses", pa.table({"n": range(len(texts)), "b": bins}))
    answered = CON.sql(
        "SELECT p.name FROM naive_addresses AS a LEFT JOIN naive_pieces AS p ON a.b BETWEEN p.s AND p.e ORDER BY a.n"
    ).fetchall()
    return [name for (name,) in answered]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(version=versions(), extra=st.lists(st.tuples(st.sampled_from([V4, V6]), st.integers(0, TOP[V6])), max_size=20))
def test_the_bucketed_join_answers_as_a_naive_between_join(
    folder: Path, version: VersionTable, extra: list[tuple[int, int]]
) -> None:
    path = folder / "version.parquet"
    written = write_table(version, path)
    assert written.pieces <= written.rows <= MAX_COPIES * written.pieces
    probes = _probes(version, [(family, value & TOP[family]) for family, value in extra])
    texts = [format_address(family, value) for family, value in probes]
    texts += ["::ffff:" + text for text in texts if ":" not in text]  # IPv4-mapped: answered as IPv4
    found = [name for (name,) in joined(CON, texts, f"read_parquet('{path}')", ["name"])]
    assert found == _naive(texts, version)


@st.composite
def address_texts(draw: st.DrawFn) -> str:
    """Addresses written every way ``inet_pton`` reads them, and texts that are not addresses."""
    value = draw(st.integers(0, TOP[V6]))
    six = ipaddress.IPv6Address(value)
    quad = format_address(V4, value & TOP[V4])
    forms = [
        format_address(V4, value & TOP[V4]),
        six.compressed,
        six.exploded,
        six.compressed.upper(),
        "::ffff:" + quad,
        "::" + quad,
        ":".join(six.exploded.split(":")[:6]) + ":" + quad,
        draw(st.text(alphabet="0123456789abcdefABCDEF:.x %/", max_size=46)),
    ]
    return draw(st.sampled_from(forms))


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(address_texts(), min_size=1, max_size=30))
def test_the_sql_reads_an_address_as_the_lookup_does(texts: list[str]) -> None:
    expected: list[str | None] = []
    for text in texts:
        try:
            expected.append(_bound(*parse_address(text)).hex())
        except AddressError:
            expected.append(None)
    CON.register("texts", pa.table({"n": range(len(texts)), "t": texts}))
    assert [hex_ for (hex_,) in CON.sql("SELECT fp_ip_hex(t) FROM texts ORDER BY n").fetchall()] == expected


@given(version=versions())
def test_the_network_of_a_piece_is_its_one_cidr_block(version: VersionTable) -> None:
    for family, pieces in version.families.items():
        low, high = wide(family, pieces.starts), wide(family, pieces.ends)
        blocks = [cidrs(family, *pieces.span(index)) for index in range(len(pieces))]
        assert networks(family, low, high) == [each[0] if len(each) == 1 else None for each in blocks]
