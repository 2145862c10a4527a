"""The lines of an enrichment job's input: read a block at a time from a byte stream (gunzipped when its first bytes
say it is gzip), cut into lines, as text (``text_lines``) or as bytes (``byte_lines``, for logs read as bytes:
``enrichment.log_bytes``), each stream's bytes counted as they are read (``Counted``). A line past
``MAX_LINE_CHARS``, a ``.gz`` that is no gzip, or a gzip cut short stops the job (``JobError``, naming the line).
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from typing import IO, Any, Final

BLOCK_CHARS: Final = 4 << 20
BYTES_BLOCK: Final = 16 << 20  # what a log read as bytes (``enrichment.log_bytes``) reads at a time
MAX_LINE_CHARS: Final = 1 << 20  # a line longer than this stops the job (no log line comes near it)
GZIP_MAGIC: Final = b"\x1f\x8b"


class JobError(ValueError):
    """The input cannot be enriched as asked; the message names the line."""


def _opened(source: Counted, name: str) -> Any:
    """The bytes of a stream, gunzipped when it starts as gzip does."""
    head = source.peek()
    stream: Any = io.BufferedReader(source, BLOCK_CHARS)
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=stream, mode="rb")
    if name.endswith(".gz"):
        raise JobError(f"{name} is named .gz but is not gzip (it starts with {head!r})")
    return stream


def _blocks(stream: Any, size: int, name: str) -> Iterator[Any]:
    """``stream`` read ``size`` at a time, to its end."""
    while True:
        try:
            block = stream.read(size)
        except (EOFError, OSError, zlib.error) as error:
            raise JobError(f"{name}: the gzip stream is broken or cut short ({error})") from None
        if not block:
            return
        yield block


def text_lines(source: Counted, name: str, *, cr: bool = False) -> Iterator[list[str]]:
    """The lines of a byte stream, a block at a time (no line endings; ``cr``: a line's ``\\r`` kept), gunzipped when
    it starts as gzip does."""
    text = io.TextIOWrapper(_opened(source, name), encoding="utf-8", errors="surrogateescape", newline="")
    rest, count = "", 0
    for block in _blocks(text, BLOCK_CHARS, name):
        lines = (rest + block).split("\n")
        crlf = "\r" in block or rest.endswith("\r")  # a CRLF the block boundary cut in two
        rest = lines.pop()
        count += len(lines)
        if len(rest) > MAX_LINE_CHARS:
            raise JobError(f"{name}: a line runs past {MAX_LINE_CHARS:,} characters (after line {count:,})")
        yield [line[:-1] if line.endswith("\r") else line for line in lines] if crlf and not cr else lines
    if rest:
        yield [rest[:-1] if rest.endswith("\r") and not cr else rest]


def byte_lines(source: Counted, name: str) -> Iterator[list[bytes]]:
    """The lines ``text_lines`` reads, as bytes, a block at a time."""
    rest, count = b"", 0
    for block in _blocks(_opened(source, name), BYTES_BLOCK, name):
        lines = block.split(b"\n")
        crlf = b"\r" in block or rest.endswith(b"\r")
        lines[0] = rest + lines[0]
        rest = lines.pop()
        count += len(lines)
        if lines:
            yield [line[:-1] if line.endswith(b"\r") else line for line in lines] if crlf else lines
        if len(rest) > MAX_LINE_CHARS and len(rest.decode("utf-8", "surrogateescape")) > MAX_LINE_CHARS:
            raise JobError(f"{name}: a line runs past {MAX_LINE_CHARS:,} characters (after line {count:,})")
    if rest:
        yield [rest[:-1] if rest.endswith(b"\r") else rest]


class Counted(io.RawIOBase):
    """A byte stream that counts what is read from it, and can show its first bytes before they are read."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw, self.count, self.head = raw, 0, b""

    def peek(self) -> bytes:
        self.head = self.raw.read(len(GZIP_MAGIC))
        return self.head

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            size = min(len(buffer), len(self.head))
            buffer[:size], self.head = self.head[:size], self.head[size:]
        else:
            data = self.raw.read(len(buffer))
            size = len(data)
            buffer[:size] = data
        self.count += size
        return size
