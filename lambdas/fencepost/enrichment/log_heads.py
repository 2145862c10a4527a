"""A batch of log lines read for their address (and time) alone, when the lines are written back as they are (the
``log`` output): each line's first fields taken by its layout's ``field_at``, the rest of the line never split.

``addresses`` answers for a whole batch, or None when any line of it needs the reader's step per line: a header or
comment line, a line too short for the fields wanted, an address field its layout refuses. The reader then reads
that batch line by line, which gives the same rows with the reasons of the bad ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from fencepost.core.logs.layout import LayoutError, LogLayout


def addresses(
    layout: LogLayout, lines: Sequence[str], name: str, at: int, needed: int, *, times: Sequence[int | None] | None
) -> tuple[list[str], list[tuple[str, ...]] | None] | None:
    """Each line's address text (field ``at``, named ``name``) and, when ``times`` are asked for, its time fields
    (the first ``needed`` fields reach them all); None when the batch must be read line by line."""
    if layout.field_at is None or not lines or set(map(layout.header, lines)) != {None}:
        return None
    texts = layout.field_at(lines, at, needed)
    if texts is None:
        return None
    try:
        found = list(map(layout.addresses[name], texts))
    except LayoutError:
        return None
    if times is None:
        return found, None
    columns = [[""] * len(lines) if index is None else layout.field_at(lines, index, needed) for index in times]
    if any(column is None for column in columns):
        return None
    return found, list(zip(*columns, strict=True))
