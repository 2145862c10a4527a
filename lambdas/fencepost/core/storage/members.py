"""Gzip files that can be read from the middle: one gzip member every ``MEMBER_LINES`` lines.

A gzip file may hold several members one after another, and every gzip reader reads them as one stream, so the
file stays an ordinary ``.gz``. Each member also starts a fresh compression, so a reader given the byte offset of a
member (an S3 ranged GET) can decompress from there without the bytes before it. A position in such a file is
``(offset, line)``: the member that starts at ``offset``, and the line's number within it. Paging a file of N
lines from a position costs at most one member's worth of lines skipped, never the N before it.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Final, NamedTuple

MEMBER_LINES: Final = 1000
# The largest member offset a cursor may name: past any object S3 keeps (5 TB is under 2**43)
MAX_OFFSET: Final = 1 << 48
_GZIP: Final = 16 + zlib.MAX_WBITS  # zlib's window bits for a gzip header and trailer
_READ: Final = 64 * 1024


class Position(NamedTuple):
    """The ``line``-th line (from 0) of the member that starts at byte ``offset``."""

    offset: int
    line: int


START: Final = Position(0, 0)


def gzip_members(lines: Iterable[str], per_member: int = MEMBER_LINES) -> Iterator[bytes]:
    """The gzip members of ``lines`` (each ending in a newline), ``per_member`` lines to a member."""
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) == per_member:
            yield gzip.compress("".join(batch).encode(), compresslevel=6, mtime=0)
            batch = []
    if batch:
        yield gzip.compress("".join(batch).encode(), compresslevel=6, mtime=0)


class MemberError(ValueError):
    """The bytes at a position are not the start of a gzip member, or a member ends early."""


def lines_from(read: Callable[[int], bytes], at: Position) -> Iterator[tuple[Position, bytes]]:
    """Each line from ``at`` on, with its position, without its newline.

    ``read(size)`` returns the file's bytes from ``at.offset`` on (empty at the end). The lines before ``at.line``
    in its member are decompressed and skipped. ``MemberError`` when the bytes there are not gzip members.
    """
    offset, skip = at
    pending = b""  # compressed bytes of the current member not yet decompressed
    while True:
        inflater = zlib.decompressobj(_GZIP)
        consumed = 0  # compressed bytes of this member fed so far
        text = b""
        index = 0
        while not inflater.eof:
            chunk = pending or read(_READ)
            pending = b""
            if not chunk:
                if consumed == 0 and not text:
                    return  # the end of the file, between members
                raise MemberError("the file ends inside a gzip member")
            try:
                text += inflater.decompress(chunk)
            except zlib.error as error:
                raise MemberError(f"not a gzip member at byte {offset} ({error})") from None
            consumed += len(chunk) - len(inflater.unused_data)
            *complete, text = text.split(b"\n")
            for line in complete:
                if index >= skip:
                    yield Position(offset, index), line
                index += 1
        if text and index >= skip:
            yield Position(offset, index), text  # a last line without its newline
        pending = inflater.unused_data
        offset += consumed
        skip = 0
