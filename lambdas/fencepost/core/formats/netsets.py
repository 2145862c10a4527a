"""Lists of networks and addresses, one a line: FireHOL ``.netset``/``.ipset`` files, Spamhaus DROP/EDROP.

A line is an address (a /32 or /128) or a CIDR network (host bits must be clear, as in the ``network`` layout),
optionally followed by a comment after ``;`` or ``#`` (Spamhaus: ``1.10.16.0/20 ; SBL256894``), which becomes the
one metadata column, ``comment``. Lines starting with ``#`` or ``;`` are comments; blank lines are skipped.
"""

from __future__ import annotations

from typing import Final

from fencepost.core.formats.base import Record
from fencepost.core.formats.cells import RowError, boundary, network
from fencepost.core.space.addresses import AddressError, parse_boundary

COLUMNS: Final = ("comment",)
DELIMITER: Final = ";"  # between a network and its comment
COMMENTS: Final = ("#", ";")


def _parts(line: str) -> tuple[str, str] | None:
    """``(entry, comment)`` of a line; None for a comment line or a blank one."""
    text = line.strip()
    if not text or text.startswith(COMMENTS):
        return None
    cut = min((index for index in (text.find(";"), text.find("#")) if index >= 0), default=len(text))
    return text[:cut].strip(), text[cut + 1 :].strip()


def looks_like_list(line: str) -> bool:
    """Whether a file's first line that is not a comment is one address or network (no comma, no tab: those
    are the delimiters of the column layouts), with or without a comment."""
    parts = _parts(line)
    if parts is None or "," in parts[0] or "\t" in parts[0] or len(parts[0].split()) != 1:
        return False
    address, slash, prefix = parts[0].partition("/")
    if slash and not (prefix.isascii() and prefix.isdigit()):
        return False
    try:
        parse_boundary(address)
    except AddressError:
        return False
    return True


def list_record(line: str) -> Record | None:
    """The range of one line, None for a comment or blank line; raises ``RowError`` for an entry not usable."""
    parts = _parts(line)
    if parts is None:
        return None
    entry, comment = parts
    if not entry:
        raise RowError("no address or network before the comment")
    if len(entry.split()) != 1 or "," in entry:
        raise RowError(f"{entry[:60]!r} is not one address or network (a list has one a line)")
    if "/" in entry:
        family, first, last = network(entry)
        return family, first, last, (comment,)
    family, first = boundary(entry, "address")
    return family, first, first, (comment,)
