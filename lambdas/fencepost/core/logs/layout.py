"""How a log file's lines become rows of named fields: the contract every input layout meets.

A layout says how one line splits into fields (``split``), which lines are headers or comments and the field names
they declare (``header``), which fields hold an address and how to take it out of its field (``addresses``: a
client's ``ip:port`` gives ``ip``), and which fields give the line's own time (``time`` and ``instant``).
Everything here is pure: no file, no AWS.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


class LayoutError(ValueError):
    """A line that does not fit its layout; the message says why (the reader adds the line's number)."""


def as_is(text: str) -> str:
    return text


_ENCODED = str.maketrans({" ": "%20", "\t": "%09", "\r": "%0D", "\n": "%0A"})


def encoded(value: str) -> str:
    """A value as one field of a layout whose fields hold no space: its spaces and line breaks percent-encoded, as
    CloudFront writes them; no value (``""``) as ``-``."""
    return value.translate(_ENCODED) if value else "-"


def quoted(value: str) -> str:
    """A value as one quoted field of ALB and S3 logs: ``"`` written as ``\\x22`` (as ALB writes a client's), a
    line break as a space; no value as ``"-"``."""
    if not value:
        return '"-"'
    return '"' + value.replace('"', "\\x22").replace("\r", " ").replace("\n", " ") + '"'


def no_heading(_names: Sequence[str]) -> str:
    """A layout whose files start with no header line."""
    return ""


@dataclass(frozen=True, slots=True)
class LogLayout:
    """One documented log format.

    - ``names``: the field names, in order, as the publisher documents them (a header line may declare others);
    - ``split``: one line (no line ending) into its fields; ``LayoutError`` when it cannot be;
    - ``header``: for a line that is a header or a comment, the field names it declares (``()`` when it declares
      none); None for a line of data;
    - ``addresses``: each field that holds an address, the default first, with the function that takes the address
      text out of the field (``"-"`` or an empty field gives ``""``: no address);
    - ``time``: the fields that make a line's time, and ``instant`` turns their texts into epoch seconds
      (``LayoutError`` when they are not a time);
    - ``field_at``: each line's field ``at`` as ``split`` gives it, found without splitting the rest of the line;
      None when a line has fewer than ``count`` fields or ``split`` would refuse it (a layout without it: lines are
      split whole);
    - ``separator`` and ``field``: how more fields are written after a line's own (``field``: a value as one field
      of this layout), and ``heading``: the header lines a file of these names starts with ("" for none).
    """

    name: str
    names: tuple[str, ...]
    split: Callable[[str], list[str]]
    header: Callable[[str], tuple[str, ...] | None]
    addresses: Mapping[str, Callable[[str], str]]
    time: tuple[str, ...]
    instant: Callable[[Sequence[str]], float]
    field_at: Callable[[Sequence[str], int, int], list[str] | None] | None = None
    separator: str = " "
    field: Callable[[str], str] = encoded
    heading: Callable[[Sequence[str]], str] = no_heading
