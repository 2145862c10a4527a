"""``<column>:<value>``: the ranges whose column holds a value, as ``GET /ranges?where=`` reads it and a folder's
sinks name it (``core.sinks.sink_settings``). Split at the first colon: a value may hold colons, or be empty; the
column is trimmed and must not be empty."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Where:
    """Only the ranges whose ``column`` holds ``value``."""

    column: str
    value: str


def split_where(text: object) -> Where | None:
    """The column and value of ``text``; None when it is not text of the form ``<column>:<value>``."""
    if not isinstance(text, str):
        return None
    column, colon, value = text.partition(":")
    if not colon or not column.strip():
        return None
    return Where(column.strip(), value)
