"""An input cut into parts that workers enrich apart, and each part read back as the lines it owns.

- A file that is not gzip is cut into byte ranges of about ``target`` bytes. A range owns every line that *starts*
  in it: its reader skips to the first line start at or after the range's start and reads on past its end to the
  end of the last line it owns. So every line belongs to exactly one part, whatever the ranges, and the parts'
  lines in order are the file's lines.
- A gzip file is cut at its members' boundaries (a file of several members: each member is a gzip stream of its
  own), members grouped until their text reaches ``target``; one member is one part. Finding the members reads the
  file once, inflating it (``gzip_parts``).

A part after the first is read after its file's *head*: the lines before its first row (a CSV header, a log's
``#Fields:`` line, a flow log's header), which tell the reader the columns; the head's lines are no rows of the part.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable, Iterator
from typing import Any, Final

BLOCK: Final = 1 << 20
HEAD_BYTES: Final = 64 << 10  # a file's head is found among its first lines, up to this much text
GZIP_WINDOW: Final = 31  # zlib's wbits for a gzip stream

Read = Callable[[int], bytes]  # up to n more bytes; b"" at the end


class PartError(ValueError):
    """An input that cannot be cut or read as it says it is; the message says why."""


def plain_parts(size: int, target: int) -> list[tuple[int, int]]:
    """Byte ranges of about ``target`` bytes covering ``size`` bytes (one empty range for an empty file)."""
    count = max(1, -(-size // target))
    step = -(-size // count) if size else 0
    return [(start, min(start + step, size)) for start in range(0, max(size, 1), max(step, 1))][:count]


def gzip_parts(read: Read, target: int, *, in_time: Callable[[], bool] = lambda: True) -> list[tuple[int, int]]:
    """Compressed byte ranges, each a run of whole members holding about ``target`` bytes of text; ``PartError`` for
    a stream that is no gzip or is cut short, or when ``in_time`` says the time to scan it is up."""
    parts: list[tuple[int, int]] = []
    start = position = text = 0
    inflater, started = zlib.decompressobj(GZIP_WINDOW), False
    while block := read(BLOCK):
        data = block
        while data:
            if not in_time():
                raise PartError("its gzip members could not all be found in time: split it into smaller objects")
            if not started and not data.strip(b"\0"):
                position += len(data)  # zero padding after the last member, as gzip itself allows
                break
            started = True
            try:
                text += len(inflater.decompress(data, BLOCK))
            except zlib.error as error:
                raise PartError(f"it is not gzip past byte {position:,} ({error})") from None
            if inflater.eof:
                used = len(data) - len(inflater.unused_data)
                data, position = inflater.unused_data, position + used
                inflater, started = zlib.decompressobj(GZIP_WINDOW), False
                if text >= target:
                    parts.append((start, position))
                    start, text = position, 0
            else:
                position += len(data) - len(inflater.unconsumed_tail)
                data = inflater.unconsumed_tail
    if started:
        raise PartError("its gzip stream is cut short")
    if text or start < position or not parts:
        parts.append((start, position))
    return parts


def owned_lines(read: Read, start: int, end: int) -> Iterator[bytes]:
    """The bytes of the lines that start in ``[start, end)`` of a file, given ``read`` from byte ``max(start - 1, 0)``:
    the lines end to end, the last one whole (to the end of the file if it has no line ending)."""
    position = max(start - 1, 0)  # the file offset of the next byte read
    skipping = start > 0
    finishing = False
    while block := read(BLOCK):
        if skipping:
            at = block.find(b"\n")
            if at < 0 or position + at + 1 >= end:
                if at >= 0 or position + len(block) >= end:
                    return  # no line starts in the range
                position += len(block)
                continue
            block, position, skipping = block[at + 1 :], position + at + 1, False
        if finishing or position + len(block) >= end:
            at = block.find(b"\n", 0 if finishing else max(end - 1 - position, 0))
            if at >= 0:
                yield block[: at + 1]
                return
            finishing = True
        if block:
            yield block
        position += len(block)


def inflated(read: Read, size: int) -> Iterator[bytes]:
    """The text of ``size`` bytes of whole gzip members (``gzip_parts``' ranges), a block at a time."""
    inflater, started, left = zlib.decompressobj(GZIP_WINDOW), False, size
    while left > 0:
        data = read(min(BLOCK, left))
        if not data:
            raise PartError("the object is shorter than when it was planned")
        left -= len(data)
        while data:
            if not started and not data.strip(b"\0"):
                break
            started = True
            try:
                text = inflater.decompress(data, BLOCK)
            except zlib.error as error:
                raise PartError(f"it is not gzip ({error})") from None
            if text:
                yield text
            if inflater.eof:
                data, inflater, started = inflater.unused_data, zlib.decompressobj(GZIP_WINDOW), False
            else:
                data = inflater.unconsumed_tail
    if started:
        raise PartError("its gzip stream is cut short")


def head_of(text: bytes, rows_from: Callable[[list[str]], int]) -> bytes:
    """The lines of a file's first ``text`` before its first row; ``rows_from`` gives the index of the first line
    that is a row (``len(lines)`` if none is)."""
    lines = text.split(b"\n")[:-1]  # whole lines only
    decoded = [line.decode("utf-8", "surrogateescape").removesuffix("\r") for line in lines]
    count = rows_from(decoded)
    return b"".join(line + b"\n" for line in lines[:count])


class PartStream(io.RawIOBase):
    """The head, then a part's text: what a job reads for one part."""

    def __init__(self, head: bytes, chunks: Iterator[bytes]) -> None:
        self._pending, self._chunks = head, chunks
        self.text = 0  # bytes of the part's own text read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._pending = chunk
            self.text += len(chunk)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size
