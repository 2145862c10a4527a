"""An ALB log written back in its own syntax (the ``log`` output), read as bytes: no line decoded, split or
formatted in Python, each batch's address field found for all its lines at once.

The fields before ``request`` are never quoted, so the address field (``client:port``, or ``target:port``) is the
text between a line's ``at``-th and ``at + 1``-th spaces when every byte before that is a printable ASCII character
other than ``"`` and the fields are one space apart. numpy finds those spaces in the first bytes of every line
(the heads taken at once as the rows of one array: first as wide as an IPv4 field needs, then ``HEAD`` bytes for
the lines that need more), the ``:port`` is cut off at the field's last colon (a port of 1-5 digits), and the
brackets of ``[2001:db8::7]:2817`` taken off (``core.logs.alb.address``); IPv6 clients, written without brackets
(``2001:db8::7:2817``), are cut the same way. ``-`` gives no address.

A line that does not fit (a tab, a quote or a non-ASCII byte among its first fields, too few fields, a field too
long for its head, an address field ``core.logs.alb.address`` refuses or may read otherwise) is read by the reader
alone, decoded as the text path decodes it: the rows, their bad reasons and the bytes written are those of the text
path (``enrichment.input_lines.text_lines`` and ``Reader.read``). Each row's line is written as read (a trailing
carriage return dropped, as the text path drops it) and its answers after it, rendered once per distinct answer
(``Writer.log_tails``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from fencepost.core.logs import alb
from fencepost.enrichment.engine import Batch
from fencepost.enrichment.inputs import Reader, Rows
from fencepost.enrichment.outputs import Writer

HEAD: Final = 192  # at most, the bytes of each line searched for its first fields
_PADDING: Final = b"\n" + bytes(HEAD)  # after the last line: a head of any line is within the data
V4_WIDEST: Final = len("255.255.255.255:65535 ")  # an IPv4 address field, and its space
PORT_DIGITS: Final = 5
_SPACE, _COLON, _DASH, _OPEN, _CLOSE = b" :-[]"


def applies(reader: Reader, writer: Any) -> bool:
    """Whether a job reading with ``reader`` and writing with ``writer`` can take this path: an ALB log written as a
    log, every row answered as of one instant (no time field read)."""
    if not isinstance(writer, Writer) or writer.form != "log" or reader.layout is not alb.LAYOUT or reader.time:
        return False
    return reader.layout.addresses[_field(reader)] is alb.address


def _field(reader: Reader) -> str:
    return reader.column or next(iter(alb.LAYOUT.addresses))


def read(reader: Reader, lines: Sequence[bytes], first: int) -> Rows:
    """The rows of ``lines`` (the first is the file's line ``first``): each row's address text and, for the lines
    read by the reader alone, the reasons of the bad ones. ``Rows.lines`` stays empty: the lines are ``lines``."""
    texts, others = addresses(lines, alb.NAMES.index(_field(reader)))
    bad: dict[int, str] = {}
    for index in others.tolist():
        alone = reader.read([lines[index].decode("utf-8", "surrogateescape")], first + index)
        texts[index] = alone.addresses[0]
        if alone.bad:
            bad[index] = alone.bad[0]
    return Rows([], list(range(first, first + len(lines))), texts, bad=bad)


def addresses(lines: Sequence[bytes], at: int) -> tuple[list[str], npt.NDArray[np.intp]]:
    """Each line's address text from its field ``at`` ("" for ``-``), and the lines this cannot read (their text
    ""). The heads searched first reach an IPv4 field where the batch's first line has it; the lines that need more
    are searched again in their first ``HEAD`` bytes."""
    if not lines:
        return [], np.zeros(0, dtype=np.intp)
    data = np.frombuffer(b"\n".join(lines) + _PADDING, dtype=np.uint8)  # every line's head within it
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    starts = np.zeros(len(lines), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=starts[1:])
    texts, ok = _found(data, starts, at, _head(lines[0], at))
    others = np.flatnonzero(~ok)
    if len(others):
        again, found = _found(data, starts[others], at, HEAD)
        for index in np.flatnonzero(found).tolist():
            texts[int(others[index])] = again[index]
        others = others[~found]
    return texts, others


def _head(line: bytes, at: int) -> int:
    """How many bytes of each line to search first: through an IPv4 address field (``ip:port``) where ``line``'s
    starts, else ``HEAD``."""
    fields = line.split(b" ", at)
    if len(fields) <= at:
        return HEAD
    return min(HEAD, len(line) - len(fields[at]) + V4_WIDEST)


def _found(
    data: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], at: int, head: int
) -> tuple[list[str], npt.NDArray[np.bool_]]:
    """The address text of each line starting at ``starts`` in ``data``, searched for in its first ``head`` bytes
    (taken at once, as rows of one array), and which lines it was found for."""
    count = len(starts)
    data = sliding_window_view(data, head)[starts].reshape(-1)
    starts = np.arange(count, dtype=np.int64) * head
    # the spaces and every byte outside "#" to "~" (a quote, a control character, a line break, a non-ASCII byte,
    # and "!", whose line is left to the reader)
    marks = np.flatnonzero((data - np.uint8(0x23)) > np.uint8(0x5B))
    if not len(marks):
        return [""] * count, np.zeros(count, dtype=np.bool_)
    first = np.searchsorted(marks, starts)
    wanted = first[:, None] + np.arange(at + 1)
    spaces = marks[np.minimum(wanted, len(marks) - 1)]
    ok = (wanted[:, -1] < len(marks)) & (data[spaces] == _SPACE).all(axis=1) & (spaces[:, -1] < starts + head)
    ok &= (spaces[:, 0] > starts) & (np.diff(spaces, axis=1) > 1).all(axis=1)  # fields of one byte or more
    begin = np.minimum(spaces[:, -2] + 1 if at else starts, spaces[:, -1])  # within the data (a line not read: 0)
    begin, end = np.where(ok, begin, 0), np.where(ok, spaces[:, -1], 0)
    dash = (end - begin == 1) & (data[begin] == _DASH)
    host_end, port_ok = _ports(data, begin, end)
    ok &= dash | port_ok
    host_end = np.where(dash, begin, host_end)
    bracketed = ~dash & (data[begin] == _OPEN) & (data[np.maximum(host_end - 1, 0)] == _CLOSE)
    bracketed &= host_end - begin >= 2
    host_begin = begin + bracketed
    host_end = host_end - bracketed
    return _texts(data, np.where(ok, host_begin, 0), np.where(ok, host_end, 0)), ok


def _ports(
    data: npt.NDArray[np.uint8], begin: npt.NDArray[np.int64], end: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Where each field's host ends (its last colon), and whether a host of a byte or more stands before it and a
    port of 1-``PORT_DIGITS`` digits after it."""
    colons = np.flatnonzero(data == _COLON)
    if not len(colons):
        return begin, np.zeros(len(begin), dtype=np.bool_)
    last = colons[np.maximum(np.searchsorted(colons, end) - 1, 0)]
    digits = end - last - 1
    ok = (last > begin) & (last < end) & (digits >= 1) & (digits <= PORT_DIGITS)
    window = np.minimum(last[:, None] + 1 + np.arange(PORT_DIGITS), len(data) - 1)
    numeral = (data[window] - np.uint8(48)) < 10
    ok &= (numeral | (np.arange(PORT_DIGITS) >= digits[:, None])).all(axis=1)
    return last, ok


def _texts(data: npt.NDArray[np.uint8], begin: npt.NDArray[np.int64], end: npt.NDArray[np.int64]) -> list[str]:
    """The texts ``data[begin:end]`` (printable ASCII), gathered at once."""
    sizes = end - begin + 1  # each text and a line break
    total = int(sizes.sum())
    placed = np.zeros(len(sizes), dtype=np.int64)
    np.cumsum(sizes[:-1], out=placed[1:])
    picks = np.arange(total, dtype=np.int64) + np.repeat(begin - placed, sizes)
    joined = data[np.minimum(picks, len(data) - 1)]
    joined[placed + sizes - 1] = 10
    return joined.tobytes()[:-1].decode("ascii").split("\n")


def written(writer: Writer, batch: Batch, lines: Sequence[bytes]) -> bytes:
    """The batch's lines, each as read with its answers and a line break after it."""
    out: list[bytes] = [b""] * (2 * len(lines))
    out[0::2] = lines
    out[1::2] = writer.log_tails(batch)
    return b"".join(out)
