"""The formats read a line at a time rather than as columns, and how a file is recognised as one of them.

A file is of a line format when its first line that is not blank or a comment (``#``, ``;``) has the format's
signature: a delegated file's version line or record (``core.registry``), or one address or network without comma
or tab (``core.netsets``). Anything else is left to the column layouts, which then read every line again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final, NamedTuple

from fencepost.core.formats import netsets, registry

MAX_LEADING_COMMENTS: Final = 10_000  # comment lines before the first entry (FireHOL headers run to ~100)

Record = tuple[int, int, int, tuple[str, ...]]  # family, first, last, metadata


class LineFormat(NamedTuple):
    layout: str  # the ``Layout`` value
    record_of: Callable[[str], Record | None]  # a line's range; None when skipped; raises ``RowError``
    delimiter: str
    columns: tuple[str, ...]


RIR: Final = LineFormat("rir-delegated", registry.rir_record, registry.DELIMITER, registry.COLUMNS)
LIST: Final = LineFormat("list", netsets.list_record, netsets.DELIMITER, netsets.COLUMNS)


def detect(text: Iterator[str], head: list[str]) -> LineFormat | None:
    """The line format of a file whose lines ``text`` gives, if any; the lines read are appended to ``head``."""
    for line in text:
        head.append(line)
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            if len(head) > MAX_LEADING_COMMENTS:
                return None
            continue
        if registry.looks_like_rir(stripped):
            return RIR
        return LIST if netsets.looks_like_list(stripped) else None
    return None
