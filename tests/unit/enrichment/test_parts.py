"""Cutting an input into parts (``enrichment.parts``): every line in exactly one part whatever the cuts, every CSV
record too (``enrichment.csv_records``), gzip cut at its members, and a broken gzip refused with the reason."""

from __future__ import annotations

import gzip
import io
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.enrichment import parts as parts_module
from fencepost.enrichment.csv_records import joined, record_cuts
from fencepost.enrichment.parts import (
    PartError,
    PartStream,
    gzip_parts,
    head_of,
    inflated,
    owned_lines,
    plain_parts,
)


def _reader(data: bytes, offset: int, block: int = 7) -> parts_module.Read:
    stream = io.BytesIO(data)
    stream.seek(offset)
    return lambda size: stream.read(min(size, block))


def _cut(data: bytes, target: int) -> list[bytes]:
    return [
        b"".join(owned_lines(_reader(data, max(start - 1, 0)), start, end))
        for start, end in plain_parts(len(data), target)
    ]


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"x")), max_size=30),
    ending=st.booleans(),
    target=st.integers(1, 40),
)
def test_the_parts_lines_in_order_are_the_files_lines_whatever_the_cuts(
    lines: list[bytes], ending: bool, target: int
) -> None:
    data = b"\n".join(lines) + (b"\n" if ending and lines else b"")
    pieces = _cut(data, target)
    assert b"".join(pieces) == data
    filled = [piece for piece in pieces if piece]
    assert all(piece.endswith(b"\n") for piece in filled[:-1])  # no line is cut in two


def test_ranges_cover_the_file_once() -> None:
    assert plain_parts(0, 10) == [(0, 0)]
    assert plain_parts(10, 4) == [(0, 4), (4, 8), (8, 10)]
    ranges = plain_parts(1_000_003, 65_536)
    assert ranges[0][0] == 0
    assert ranges[-1][1] == 1_000_003
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))


def test_a_line_longer_than_a_part_is_read_once_by_the_part_where_it_starts() -> None:
    data = b"a\n" + b"x" * 50 + b"\nb\n"
    pieces = _cut(data, 8)
    assert b"".join(pieces) == data
    assert sum(piece.count(b"x" * 50) for piece in pieces) == 1


def test_gzip_is_cut_at_its_members_and_each_part_inflates_to_its_text() -> None:
    texts = [f"member {n}\n".encode() * (n + 1) * 50 for n in range(7)]
    data = b"".join(gzip.compress(text) for text in texts)
    ranges = gzip_parts(_reader(data, 0, 1 << 20), 1000)
    assert len(ranges) > 2
    assert ranges[0][0] == 0
    assert ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    whole = [b"".join(inflated(_reader(data, start, 5), end - start)) for start, end in ranges]
    assert b"".join(whole) == b"".join(texts)
    assert gzip_parts(_reader(data, 0), 1 << 30) == [(0, len(data))]  # a large target: one part


def test_one_member_is_one_part() -> None:
    data = gzip.compress(b"1.1.1.1\n" * 100_000)
    assert gzip_parts(_reader(data, 0, 4096), 1000) == [(0, len(data))]


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"not gzip at all", "not gzip"), (gzip.compress(b"a\n" * 1000, mtime=0)[:-20], "cut short")],
)
def test_a_broken_gzip_is_refused_with_the_reason(data: bytes, reason: str) -> None:
    with pytest.raises(PartError, match=reason):
        gzip_parts(_reader(data, 0), 100)
    with pytest.raises(PartError, match=reason):
        list(inflated(_reader(data, 0), len(data)))


def test_a_scan_past_its_time_stops_with_the_reason() -> None:
    data = gzip.compress(b"a\n" * 1000)
    with pytest.raises(PartError, match="in time"):
        gzip_parts(_reader(data, 0), 100, in_time=lambda: False)


def test_the_head_is_the_lines_before_the_first_row_and_is_read_before_a_part() -> None:
    text = b"#Version: 1.0\r\n#Fields: date c-ip\r\n2024-01-01 1.1.1.1\r\n"
    head = head_of(text, lambda lines: next(i for i, line in enumerate(lines) if not line.startswith("#")))
    assert head == b"#Version: 1.0\r\n#Fields: date c-ip\r\n"
    stream = PartStream(head, iter([b"2024-01-02 ", b"2.2.2.2\n"]))
    assert io.BufferedReader(stream).read() == head + b"2024-01-02 2.2.2.2\n"
    assert stream.text == len(b"2024-01-02 2.2.2.2\n")


_FIELDS = st.sampled_from(["a", "1.1.1.1", '"x\ny"', '"x\r\ny"', '"a ""b""\n\nc"', '"', 'x"y', '""', '"\n"', ""])


@settings(max_examples=400, deadline=None)
@given(
    rows=st.lists(st.lists(_FIELDS, min_size=1, max_size=3).map(",".join), max_size=25),
    crlf=st.booleans(),
    ending=st.booleans(),
    target=st.integers(1, 60),
    limit=st.integers(1, 5),
)
def test_the_parts_records_are_the_files_records_whatever_the_cuts(
    rows: list[str], crlf: bool, ending: bool, target: int, limit: int
) -> None:
    # quoted line breaks, doubled quotes, and quotes no line closes (within ``limit`` lines, or by the end)
    text = ("\r\n" if crlf else "\n").join(rows) + ("\n" if ending and rows else "")
    data = text.encode()
    whole = _records(data, 1, limit)
    ranges = record_cuts(_reader(data, 0), plain_parts(len(data), target), limit)

    assert ranges[0][0] == 0
    assert ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    pieces = [b"".join(owned_lines(_reader(data, max(start - 1, 0)), start, end)) for start, end in ranges]
    assert b"".join(pieces) == data
    found: list[tuple[str, int, str | None]] = []
    for at, piece in enumerate(pieces):
        found += _records(piece, b"".join(pieces[:at]).count(b"\n") + 1, limit)
    assert found == whole


def _records(data: bytes, first: int, limit: int) -> list[tuple[str, int, str | None]]:
    """Each record's text, first line and reason (an unclosed quote), as ``python -m enrich`` reads them."""
    lines = data.decode().split("\n")
    if data.endswith(b"\n") or not data:
        lines.pop()
    texts, numbers, bad, rest = joined(lines, first, limit, end=True)
    assert rest == len(lines)
    return [(text, number, bad.get(number)) for text, number in zip(texts, numbers, strict=True)]
