"""Gzip files of members (``core.storage.members``): ordinary gzip to every reader, and readable from any position."""

from __future__ import annotations

import gzip
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.core.storage.members import START, MemberError, Position, gzip_members, lines_from


def _file(lines: list[str], per_member: int) -> bytes:
    return b"".join(gzip_members((line + "\n" for line in lines), per_member))


def _from(data: bytes, at: Position) -> list[tuple[Position, bytes]]:
    return list(lines_from(io.BytesIO(data[at.offset :]).read, at))


TEXT = st.lists(st.text(alphabet=st.characters(blacklist_characters="\n\r", codec="utf-8"), max_size=30), max_size=60)


@given(lines=TEXT, per_member=st.integers(1, 7))
@settings(max_examples=150, deadline=None)
def test_every_position_reads_the_rest_of_the_file(lines: list[str], per_member: int) -> None:
    data = _file(lines, per_member)
    assert gzip.decompress(data).decode() == "".join(line + "\n" for line in lines)  # an ordinary gzip file
    read = _from(data, START)
    assert [line.decode() for _, line in read] == lines
    assert len({position.offset for position, _ in read}) == -(-len(lines) // per_member)  # one offset per member
    for number, (position, _) in enumerate(read):
        assert position.line == number % per_member
        assert [line.decode() for _, line in _from(data, position)] == lines[number:]


def test_a_page_starts_at_its_member_without_reading_the_members_before() -> None:
    data = _file([f"line {n}" for n in range(10)], 3)
    at = _from(data, START)[7][0]  # the second line of the third member
    assert at == Position(at.offset, 1)
    assert at.offset > 0
    assert [line for _, line in lines_from(io.BytesIO(data[at.offset :]).read, at)] == [b"line 7", b"line 8", b"line 9"]


def test_no_lines_make_an_empty_file() -> None:
    assert _file([], 5) == b""
    assert _from(b"", START) == []


@pytest.mark.parametrize(
    ("cut", "reason"),
    [(lambda data: data[5:], "not a gzip member"), (lambda data: data[:-3], "ends inside")],
)
def test_bytes_that_are_not_members_are_a_member_error(cut, reason) -> None:  # type: ignore[no-untyped-def]
    data = _file(["a", "b"], 1)
    with pytest.raises(MemberError, match=reason):
        list(lines_from(io.BytesIO(cut(data)).read, START))
