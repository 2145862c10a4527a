"""Lines from a byte stream, bounded: no line longer than a limit, no more bytes than a limit.

The stream is read a block at a time and each block is split once, so the work is linear in the bytes read,
however long a line is; a line that outgrows the limit, or an object that outgrows its own, stops the reading at
once with the number of the line where it happened (a small gzip may expand to gigabytes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from fencepost.core.formats import FileError
from fencepost.core.limits import Limits

READ_SIZE = 1 << 20


def split_lines(read: Callable[[int], bytes], limits: Limits, size: int = READ_SIZE) -> Iterator[bytes]:
    """Lines with their endings (``\\n``; the last one may have none). Raises ``FileError`` at a crossing."""
    max_line, room = limits.max_line_bytes, limits.max_object_bytes
    start: list[bytes] = []  # the start of a line not ended yet, in blocks
    held = 0  # its length
    number = 0  # lines yielded
    while block := read(size):
        over = len(block) > room
        if over:
            block = block[:room]
        room -= len(block)
        *ended, rest = block.split(b"\n")
        if ended:
            if start:
                start.append(ended[0])
                ended[0] = b"".join(start)
                start, held = [], 0
            if max(map(len, ended)) >= max_line:  # with its ending, the line is one byte longer
                too_long = next(index for index, line in enumerate(ended) if len(line) >= max_line)
                yield from (line + b"\n" for line in ended[:too_long])
                raise FileError(number + too_long + 1, limits.line_too_long())
            for line in ended:
                yield line + b"\n"
            number += len(ended)
        if rest:
            start.append(rest)
            held += len(rest)
            if held > max_line:
                raise FileError(number + 1, limits.line_too_long())
        if over:
            raise FileError(number + 1, limits.object_too_large())
    if start:
        yield b"".join(start)
