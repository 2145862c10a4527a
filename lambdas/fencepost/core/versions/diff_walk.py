"""The changed stretches between any two versions, from a point of the address space on: the diff a page at a time.

Two versions' pieces files (``core.storage.piece_files.piece_lines``, gzip members: ``core.storage.members``) are merged
as a build merges them (``core.versions.diffs.segments``), but from a ``Resume``: where the next stretch begins, and the
position in each file of the piece each stream held there (the first piece that ends at or after that point). Each
change comes with the ``Resume`` at its own start, so a page that stops before a change (its limit, its byte budget)
resumes exactly there, reading each file from one member on: a page costs the pieces it walks, never those before it.

A page also stops after walking ``scan`` stretches whose answer did not change, so that two versions alike over
millions of pieces answer a page in bounded time (it may then hold fewer changes than asked, with a cursor).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from fencepost.core.storage.members import Position
from fencepost.core.storage.piece_files import PieceLine
from fencepost.core.versions.diffs import Change, segments


class Resume(NamedTuple):
    """Where a walk resumes: ``address`` of ``family``, and the position of each file's held piece (None: the file
    was read to its end)."""

    family: int
    address: int
    old: Position | None
    new: Position | None


class Step(NamedTuple):
    """A changed stretch, and where a walk that stops before it resumes."""

    change: Change
    at: Resume


class Stop(NamedTuple):
    """The walk stopped after ``scan`` unchanged stretches: the next page resumes ``at``."""

    at: Resume


class _Tracked:
    """A file's pieces from a position, clipped to begin at ``(family, address)``, remembering the position of the
    last piece handed out (None once the file is read to its end)."""

    def __init__(self, pieces: Iterable[tuple[Position, PieceLine]], family: int, address: int) -> None:
        self._pieces, self._family, self._address = iter(pieces), family, address
        self.position: Position | None = None

    def __iter__(self) -> Iterator[PieceLine]:
        first = True
        for position, piece in self._pieces:
            if first and (piece.family, piece.end) < (self._family, self._address):
                # A cursor names the piece that holds (or follows) its address: this one was made up
                raise ValueError("the position does not hold the piece at the resume point")
            first = False
            self.position = position
            if piece.family == self._family and piece.start < self._address:
                yield piece._replace(start=self._address)
            else:
                yield piece
        self.position = None


def walk(
    old: Iterable[tuple[Position, PieceLine]],
    new: Iterable[tuple[Position, PieceLine]],
    start: tuple[int, int],
    scan: int,
) -> Iterator[Step | Stop]:
    """The changes from ``start`` (family, address) on, in order, touching stretches with the same hashes merged as
    ``core.versions.diffs.changed_pieces`` merges them; a ``Stop`` (and nothing more) after ``scan`` unchanged
    stretches.

    ``old`` and ``new`` are each file's pieces with their positions, from the ``Resume``'s positions (or the start).
    """
    olds, news = _Tracked(old, *start), _Tracked(new, *start)
    pending: Step | None = None
    unchanged = 0
    for family, first, last, o, n in segments(olds, news):
        before, after = (o.hash if o else None), (n.hash if n else None)
        if before == after:
            if pending is not None:
                yield pending
                pending = None
            if unchanged == scan:  # this stretch is the first of the next page: a page walks at least one
                yield Stop(Resume(family, first, olds.position, news.position))
                return
            unchanged += 1
            continue
        if pending is not None:
            change = pending.change
            if (change.family, change.end + 1, change.old_hash, change.new_hash) == (family, first, before, after):
                pending = pending._replace(change=change._replace(end=last))
                continue
            yield pending
        here = Resume(family, first, olds.position, news.position)
        pending = Step(Change(family, first, last, before, after), here)
    if pending is not None:
        yield pending
