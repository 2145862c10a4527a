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
      (``LayoutError`` when they are not a time).
    """

    name: str
    names: tuple[str, ...]
    split: Callable[[str], list[str]]
    header: Callable[[str], tuple[str, ...] | None]
    addresses: Mapping[str, Callable[[str], str]]
    time: tuple[str, ...]
    instant: Callable[[Sequence[str]], float]
