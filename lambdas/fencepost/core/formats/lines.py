"""Lines from a byte stream, bounded: no line longer than a limit, no more bytes than a limit.

The stream is read a block at a time and each block is split once, so the work is linear in the bytes read,
however long a line is; a line that outgrows the limit, or an object that outgrows its own, stops the reading at
once with the number of the line where it happened (a small gzip may expand to gigabytes).

An object whose first byte that is not blank opens a JSON object (``opens_document``) may hold lines as long as a
JSON document may be (``Limits.line_ceiling``): a minified document is one line. Whatever reads it holds it to its
own bound: the document reader to ``MAX_DOCUMENT_BYTES``, a line format to ``MAX_LINE_BYTES``
(``choice.read_ranges``).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator

from fencepost.core.folders.limits import Limits
from fencepost.core.formats.archives import Prefixed, Readable
from fencepost.core.formats.base import FileError

READ_SIZE = 1 << 20
_BLANK = b" \t\r\n\xef\xbb\xbf"  # blanks, and a UTF-8 byte-order mark's bytes


def opens_document(data: bytes) -> bool | None:
    """Whether text that starts with ``data`` opens a JSON object (its first byte that is not blank is ``{``); None
    while ``data`` is blank."""
    rest = data.lstrip(_BLANK)
    return rest.startswith(b"{") if rest else None


def split_lines(read: Callable[[int], bytes], limits: Limits, size: int = READ_SIZE) -> Iterator[bytes]:
    """Lines with their endings (``\\n``; the last one may have none). Raises ``FileError`` at a crossing."""
    max_line, room = limits.max_line_bytes, limits.max_object_bytes
    document: bool | None = None  # whether the object opens a JSON object (None while only blanks were read)
    start: list[bytes] = []  # the start of a line not ended yet, in blocks
    held = 0  # its length
    number = 0  # lines yielded
    while block := read(size):
        over = len(block) > room
        if over:
            block = block[:room]
        room -= len(block)
        if document is None and (document := opens_document(block)) is not None:
            max_line = limits.line_ceiling(document)
        *ended, rest = block.split(b"\n")
        if ended:
            if start:
                start.append(ended[0])
                ended[0] = b"".join(start)
                start, held = [], 0
            if max(map(len, ended)) >= max_line:  # with its ending, the line is one byte longer
                too_long = next(index for index, line in enumerate(ended) if len(line) >= max_line)
                yield from (line + b"\n" for line in ended[:too_long])
                raise FileError(number + too_long + 1, limits.line_too_long_in(bool(document)))
            for line in ended:
                yield line + b"\n"
            number += len(ended)
        if rest:
            start.append(rest)
            held += len(rest)
            if held > max_line:
                raise FileError(number + 1, limits.line_too_long_in(bool(document)))
        if over:
            raise FileError(number + 1, limits.object_too_large())
    if start:
        yield b"".join(start)


def object_lines(body: Readable, limits: Limits) -> Iterator[bytes]:
    """An object's lines, as ``split_lines`` gives them; gzip (by its magic bytes, whatever the name) is unpacked
    on the way, and a truncated or corrupt one raises ``FileError`` at the line where it broke."""
    head = body.read(2)
    stream: Readable = Prefixed(head, body)
    if head == b"\x1f\x8b":
        stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[call-overload]
    line = 0
    try:
        for line, text in enumerate(split_lines(stream.read, limits), 1):  # noqa: B007 - reported on failure
            yield text
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise FileError(line + 1, f"the gzip data is truncated or corrupt ({error})") from None
