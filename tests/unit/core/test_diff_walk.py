"""The diff a page at a time (``fencepost.core.versions.diff_walk``): pages resumed from their cursors, whatever their
size and wherever they stop, give exactly the changes of one pass (``core.versions.diffs.changed_pieces``)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.core.space.addresses import V4, V6
from fencepost.core.storage.members import START, Position, gzip_members, lines_from
from fencepost.core.storage.piece_files import PieceLine, parse_piece_line
from fencepost.core.versions.diff_walk import Resume, Step, Stop, walk
from fencepost.core.versions.diffs import Change, changed_pieces
from tests.support.diffs import Row, centre, random_rows, version


def _file(pieces: list[PieceLine], per_member: int) -> bytes:
    lines = (f"{p.family}\t{p.start:x}\t{p.end:x}\t{p.hash}\n" for p in pieces)
    return b"".join(gzip_members(lines, per_member))


def _from(data: bytes, at: Position | None) -> Iterator[tuple[Position, PieceLine]]:
    """What a page reads: the file from one member on (a ranged GET), nothing once it was read to its end."""
    if at is None:
        return
    for position, line in lines_from(io.BytesIO(data[at.offset :]).read, Position(0, at.line)):
        yield Position(position.offset + at.offset, position.line), parse_piece_line(line.decode())


def _paged(old: bytes, new: bytes, limit: int, scan: int) -> tuple[list[Change], int]:
    """Every change, a page of at most ``limit`` at a time, each page resumed from the last one's cursor."""
    found: list[Change] = []
    at: Resume | None = Resume(V4, 0, START, START)
    pages = 0
    while at is not None:
        pages += 1
        assert pages < 10_000
        page: list[Change] = []
        following = None
        for item in walk(_from(old, at.old), _from(new, at.new), (at.family, at.address), scan):
            if isinstance(item, Stop) or len(page) == limit:
                following = item.at
                break
            page.append(item.change)
        found += page
        at = following
    return found, pages


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    partitions=st.tuples(st.integers(1, 255), st.integers(1, 2**20 - 1)),
    per_member=st.integers(1, 5),
    limit=st.integers(1, 4),
    scan=st.integers(1, 6),
)
def test_pages_resumed_from_their_cursors_give_the_changes_of_one_pass(
    data: st.DataObject, partitions: tuple[int, int], per_member: int, limit: int, scan: int
) -> None:
    # Given two versions' pieces files, in members of a few lines (so that pages resume inside and across members)
    centres = {V4: centre(V4, partitions[0]), V6: centre(V6, partitions[1])}
    old_rows: list[Row] = data.draw(random_rows(centres))
    new_rows: list[Row] = data.draw(random_rows(centres))
    old, new = version(old_rows), version(new_rows)
    # When the changes are read a page at a time, each page stopping at its limit or its scan
    found, pages = _paged(_file(old, per_member), _file(new, per_member), limit, scan)
    # Then they are exactly the changes of one pass, merged the same way
    expected = list(changed_pieces(iter(old), iter(new)))
    assert found == expected
    assert pages >= -(-len(expected) // limit)


def test_a_page_resumes_at_the_change_it_stopped_before() -> None:
    # Given a change every other piece
    old = [PieceLine(V4, k * 10, k * 10 + 9, f"{k:016x}") for k in range(6)]
    new = [p if k % 2 else p._replace(hash=f"{k + 100:016x}") for k, p in enumerate(old)]
    old_file, new_file = _file(old, 2), _file(new, 2)
    steps = list(walk(_from(old_file, START), _from(new_file, START), (V4, 0), 100))
    assert [s.change.start for s in steps if isinstance(s, Step)] == [0, 20, 40]
    # When a page resumes at the second change's cursor
    at = steps[1].at
    assert (at.family, at.address) == (V4, 20)
    resumed = [
        s.change for s in walk(_from(old_file, at.old), _from(new_file, at.new), (V4, 20), 100) if isinstance(s, Step)
    ]
    # Then it reads the file from the member holding that piece, and finds the changes from there on
    assert at.old is not None
    assert (at.old.offset > 0, at.old.line) == (True, 0)
    assert [c.start for c in resumed] == [20, 40]


def test_a_walk_over_unchanged_pieces_stops_after_its_scan() -> None:
    same = [PieceLine(V4, k * 10, k * 10 + 9, f"{k:016x}") for k in range(50)]
    changed = [*same[:-1], same[-1]._replace(hash="f" * 16)]
    data_old, data_new = _file(same, 7), _file(changed, 7)
    items = list(walk(_from(data_old, START), _from(data_new, START), (V4, 0), 20))
    # Twenty unchanged stretches, then a stop at the twenty-first: no change yet
    assert len(items) == 1
    assert isinstance(items[0], Stop)
    assert items[0].at.address == 200
    # The rest of the walk from there finds the one change
    at = items[0].at
    rest = list(walk(_from(data_old, at.old), _from(data_new, at.new), (V4, at.address), 100))
    assert [item.change.start for item in rest if isinstance(item, Step)] == [490]


def test_a_crafted_resume_point_inside_a_piece_clips_it() -> None:
    old = [PieceLine(V4, 0, 99, "a" * 16)]
    new = [PieceLine(V4, 0, 99, "b" * 16)]
    steps = list(walk(_from(_file(old, 1), START), _from(_file(new, 1), START), (V4, 40), 10))
    assert [item.change for item in steps if isinstance(item, Step)] == [Change(V4, 40, 99, "a" * 16, "b" * 16)]


def test_a_position_whose_piece_ends_before_the_resume_point_is_refused() -> None:
    # A real cursor names the piece holding (or following) its address; a made-up one would read the file whole
    old = [PieceLine(V4, k * 10, k * 10 + 9, "a" * 16) for k in range(20)]
    data = _file(old, 5)
    with pytest.raises(ValueError, match="does not hold the piece"):
        list(walk(_from(data, START), _from(data, START), (V4, 150), 10))


def test_a_cursor_of_a_64_character_name_and_an_ipv6_address_fits() -> None:
    from fencepost.http.paging import MAX_CURSOR_CHARS
    from fencepost.http.version_diff_routes import _decode, _encode

    name = "n" * 64
    at = Resume(V6, (1 << 128) - 1, Position((1 << 48) - 1, 999), None)
    token = _encode(name, (999_999_999_999, 999_999_999_999), at)
    assert len(token) <= MAX_CURSOR_CHARS
    assert _decode(token, name) == ((999_999_999_999, 999_999_999_999), at)
