"""CSV and TSV records that span lines: a quoted field may hold line breaks (RFC 4180: ``"a<newline>b"``), so a record
is one line or more. The rule, the same for ``python -m enrich`` and for every part of a job:

- a line with an even number of ``"`` (none, most often) is a record of its own;
- a line with an odd number opens a record that runs to the next line with an odd number, if that line is among
  the ``limit`` lines starting at the opening one (the record spans at most ``limit`` lines);
- otherwise (no such line within ``limit`` lines, or the input ends first) the opening line is a bad row of its own,
  and the next record starts at the line after it.

The rule looks only at each line's count of ``"`` and at the lines after a record's start, so reading from any
record start gives the records the whole file gives from there on. ``record_cuts`` moves a job's part boundaries out
of records that span lines: each part then starts at a record start and holds whole records.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np

from fencepost.enrichment.parts import BLOCK, PartError, Read

RECORD_LINES: Final = 100  # the lines a record may span by default (``record_lines`` of a job, ``--record-lines``)
MOST_RECORD_LINES: Final = 10_000

_NEITHER: Final = bytes(range(256)).translate(None, b'"\n')  # every byte but the quote and the line break
Span = tuple[int, int, bool]  # a record's first line, the line after its last, and whether it is an unclosed quote


def unclosed(limit: int) -> str:
    """The reason a line that opens a quote no line closes is a bad row (the bad row's report gives the line's number,
    which a job's part only knows from its own first line)."""
    return f"the line opens a quoted field that no line closes within {limit:,} lines: read as a row of its own"


def spans(odd: Sequence[int], count: int, limit: int, *, end: bool) -> tuple[list[Span], int]:
    """Among ``count`` lines that start at a record start, where ``odd`` (ascending) are the indexes of those with an
    odd number of ``"``: the records that are not one line of their own (closed records of two lines or more, and
    lines whose quote is not closed), and the index of the first line not yet read into a record (``count``, or the
    opening line of a record that the lines after ``count`` may close, unless ``end``: the input ends there)."""
    found: list[Span] = []
    at = 0
    while at < len(odd):
        first = odd[at]
        if at + 1 < len(odd) and odd[at + 1] < first + limit:
            found.append((first, odd[at + 1] + 1, False))
            at += 2
        elif first + limit <= count or end:
            found.append((first, first + 1, True))
            at += 1
        else:
            return found, first
    return found, count


def odd_lines(text: bytes) -> list[int]:
    """The indexes of the lines of ``text`` (split at ``\\n``) with an odd number of ``"``: all but the quotes and line
    breaks deleted, then quotes two by two, in C; what is left is a quote on each line with an odd number."""
    left = text.translate(None, _NEITHER).replace(b'""', b"")
    found: list[int] = []
    line = seen = 0
    at = left.find(b'"')
    while at >= 0:
        line += left.count(b"\n", seen, at)
        found.append(line)
        seen, at = at, left.find(b'"', at + 1)
    return found


def record_cuts(
    read: Read, ranges: Sequence[tuple[int, int]], limit: int, *, in_time: Callable[[], bool] = lambda: True
) -> list[tuple[int, int]]:
    """``ranges`` (``parts.plain_parts``) with each boundary inside a record that spans lines moved to the end of that
    record, and the ranges left empty dropped: reads the file from its start (``read``) as far as the last boundary,
    and ``PartError`` when ``in_time`` says the time to scan it is up."""
    cuts = [start for start, _ in ranges[1:]]
    if not cuts:
        return list(ranges)
    inside = _inside(read, cuts[-1], limit, in_time)
    starts = [0]
    for given in cuts:
        at = bisect.bisect_left(inside, (given, -1)) - 1  # the last record spanning lines that opens before the cut
        cut = inside[at][1] if at >= 0 and inside[at][0] < given < inside[at][1] else given
        if starts[-1] < cut < ranges[-1][1]:
            starts.append(cut)
    return [(start, end) for start, end in zip(starts, [*starts[1:], ranges[-1][1]], strict=True)]


def _inside(read: Read, until: int, limit: int, in_time: Callable[[], bool]) -> list[tuple[int, int]]:
    """The byte ranges ``(first line's start, the start of the line after the last)`` of the records that span lines
    and open before ``until``, in order."""
    found: list[tuple[int, int]] = []
    held, position = b"", 0  # ``held`` starts at the file's byte ``position``, a record start
    while True:
        if not in_time():
            raise PartError("its records could not all be found in time: split it into smaller objects")
        block = read(BLOCK)
        data = held + block
        cut = data.rfind(b"\n") + 1 if block else len(data)  # whole lines, and at the end the last line too
        if data.find(b'"', 0, cut) < 0:  # no quote: every line is a record of its own
            held, position = data[cut:], position + cut
        else:
            starts = _starts(data[:cut], position)
            records, rest = spans(odd_lines(data[:cut]), len(starts) - 1, limit, end=not block)
            found += [(starts[first], starts[stop]) for first, stop, bad in records if not bad and stop - first > 1]
            held, position = data[starts[rest] - position :], starts[rest]
        if not block or position >= until:
            return found


def _starts(text: bytes, position: int) -> list[int]:
    """The offsets in the file of the lines of ``text`` (the first at ``position``), then the offset after the last
    line's line break (one it would have, at the file's end)."""
    breaks = np.flatnonzero(np.frombuffer(text, np.uint8) == ord("\n")) + (position + 1)
    ends: list[int] = breaks.tolist()
    return [position, *ends] if text.endswith(b"\n") else [position, *ends, position + len(text) + 1]


def joined(
    lines: Sequence[str], first: int, limit: int, *, end: bool, odd: Sequence[int] | None = None
) -> tuple[list[str], list[int], dict[int, str], int]:
    """The records of ``lines`` (the input's lines from ``first``, at a record start, each without its ``\\n``): each
    record's text (its lines and the line breaks between them as they were, a ``\\r`` ending the last taken off), its
    first line's number, the reasons of the lines whose quote is not closed (by number), and the index of the first
    line not read into a record (``spans``); ``odd``: the lines with an odd number of quotes (``odd_lines``), if
    known."""
    if odd is None:
        odd = odd_lines("\n".join(lines).encode("utf-8", "surrogateescape"))
    found, rest = spans(odd, len(lines), limit, end=end)
    texts: list[str] = []
    numbers: list[int] = []
    bad: dict[int, str] = {}
    at = 0
    for start, stop, open_quote in [*found, (rest, rest, False)]:
        texts += [line[:-1] if line.endswith("\r") else line for line in lines[at:start]]
        numbers += range(first + at, first + start)
        if stop > start:
            text = "\n".join(lines[start:stop])
            texts.append(text[:-1] if text.endswith("\r") else text)
            numbers.append(first + start)
            if open_quote:
                bad[first + start] = unclosed(limit)
        at = stop
    return texts, numbers, bad, rest


class Records:
    """A CSV or TSV file's records, a batch of lines at a time: a record still open at a batch's end is held for the
    next."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held: list[str] = []  # the lines of a record the next batch may close
        self._held_from = 0

    def read(
        self, lines: Sequence[str], first: int, *, more: bool
    ) -> tuple[Sequence[str], Sequence[int], dict[int, str]]:
        """The records of the lines held and ``lines`` (the first the file's line ``first``), as ``joined`` gives
        them; ``more``: lines follow, so a record open at the end is held."""
        if self.held:
            lines, first = [*self.held, *lines], self._held_from
        whole = "\n".join(lines)
        odd = odd_lines(whole.encode("utf-8", "surrogateescape")) if '"' in whole else []
        if not odd:  # no line opens a quote it does not close: a record a line
            self.held = []
            kept = [line[:-1] if line.endswith("\r") else line for line in lines] if "\r" in whole else lines
            return kept, range(first, first + len(kept)), {}
        texts, numbers, unclosed, rest = joined(lines, first, self.limit, end=not more, odd=odd)
        self.held, self._held_from = list(lines[rest:]), first + rest
        return texts, numbers, unclosed
