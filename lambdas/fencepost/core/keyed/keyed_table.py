"""A keyed dataset's version: its whole table, one row a key, and the form its keys are compared in.

A keyed version is stored as one gzip'd JSON object (``core.storage.objects.keys_key``): lookups read it once per
container and keep it, so a join costs no read per lookup. ``key_form`` says how a key is written on both sides of a
join: ``text`` compares them as they are (trimmed), ``asn`` as AS numbers (``AS13335``, ``as13335``
and ``13335`` are one key; ``0013335`` too).
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

KEY_FORMS: Final = ("text", "asn")
FORMAT: Final = 1
MAX_KEY_CHARS: Final = 256  # a longer key is no key of a table: refused as the row's problem
MAX_ASN: Final = 2**32 - 1  # 4-byte AS numbers (RFC 6793)
# Measured with tracemalloc on tables decoded from their object (CPython 3.11, 100,000 keys, two short columns): 152
# bytes a row for the dict slot, the key's str and the values' tuple, without the characters themselves.
ROW_BYTES: Final = 152
CELL_BYTES: Final = 56  # a str object's header and its slot in the row's tuple
MAX_TEXT_BYTES: Final = 1024 * 1024 * 1024  # a stored table's JSON text, inflated, at most (300,000 keys take ~12 MB)


class KeyedError(ValueError):
    """A keyed table or setting that cannot be used; the message says why."""


class TableTooLarge(KeyedError):
    """A stored table whose text is over the reader's bound."""


def normalize(form: str, value: str) -> str | None:
    """``value`` as a key of ``form``; None when it is no key (empty, too long, or not an AS number for ``asn``)."""
    text = value.strip()
    if not text or len(text) > MAX_KEY_CHARS:
        return None
    if form == "text":
        return text
    digits = text[2:] if text[:2].lower() == "as" else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 12 or int(digits) > MAX_ASN:
        return None
    return str(int(digits))


def row_bytes(key: str, values: tuple[str, ...]) -> int:
    """The memory one row of a table takes, estimated (``KeyedTable.memory_bytes`` sums it)."""
    return ROW_BYTES + CELL_BYTES * len(values) + len(key) + sum(map(len, values))


def check_form(form: object) -> str:
    if form not in KEY_FORMS:
        raise KeyedError(f"key_form must be one of {', '.join(KEY_FORMS)}, not {str(form)[:40]!r}")
    return str(form)


@dataclass(frozen=True, slots=True)
class KeyedTable:
    """The rows of a keyed version: ``key`` names the key column, ``columns`` the others (in file order), ``rows``
    each normalized key's values."""

    key: str
    form: str
    columns: tuple[str, ...]
    rows: Mapping[str, tuple[str, ...]]
    positions: Mapping[str, int] = field(init=False, repr=False, compare=False)  # each column's index in a row

    def __post_init__(self) -> None:
        object.__setattr__(self, "positions", {column: index for index, column in enumerate(self.columns)})

    def pick(self, row: tuple[str, ...], columns: Sequence[str]) -> tuple[str | None, ...]:
        """``row``'s values of ``columns``, in that order (None for a column this table does not have)."""
        at = self.positions
        return tuple(row[at[column]] if column in at else None for column in columns)

    def row(self, value: str) -> tuple[str, ...] | None:
        """The values of the row whose key is ``value`` (normalized here), or None."""
        key = normalize(self.form, value)
        return None if key is None else self.rows.get(key)

    def keys_where(self, column: str, value: str) -> list[str]:
        """The keys whose ``column`` is exactly ``value``, in key order (a reverse lookup by a joined column)."""
        at = self.columns.index(column)
        return sorted(key for key, values in self.rows.items() if values[at] == value)

    def memory_bytes(self) -> int:
        """An upper estimate of the memory the table takes once decoded (what the lookup's cache budgets)."""
        return 1024 + sum(row_bytes(key, values) for key, values in self.rows.items())

    def encode(self) -> bytes:
        """The stored object: gzip'd JSON, rows in key order (the same table always encodes to the same bytes)."""
        document = {
            "format": FORMAT,
            "key": self.key,
            "key_form": self.form,
            "columns": list(self.columns),
            "rows": [[key, *self.rows[key]] for key in sorted(self.rows)],
        }
        text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
        return gzip.compress(text.encode(), compresslevel=6, mtime=0)

    @classmethod
    def decode(cls, data: bytes, max_text: int = MAX_TEXT_BYTES) -> KeyedTable:
        """A stored table; ``KeyedError`` when the object is not one, or its JSON text is over ``max_text`` bytes (it
        is never inflated further: a small object cannot make a reader hold gigabytes)."""
        try:
            inflater = zlib.decompressobj(wbits=31)  # a gzip member
            text = inflater.decompress(data, max_text + 1)
            if len(text) > max_text or inflater.unconsumed_tail:
                raise TableTooLarge(f"the keyed table's text is larger than {max_text:,} bytes")
            document = json.loads(text)
        except (zlib.error, ValueError) as error:
            if isinstance(error, KeyedError):
                raise
            raise KeyedError(f"the keyed table is unreadable: {error}") from None
        return cls.from_document(document)

    @classmethod
    def from_document(cls, document: Any) -> KeyedTable:
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise KeyedError("the keyed table is not in a format this version reads")
        columns = document.get("columns")
        rows = document.get("rows")
        if not isinstance(columns, list) or not isinstance(rows, list):
            raise KeyedError("the keyed table has no columns or rows")
        width = len(columns) + 1
        table: dict[str, tuple[str, ...]] = {}
        for row in rows:
            if not isinstance(row, list) or len(row) != width:
                raise KeyedError(f"a row of the keyed table has {len(row) if isinstance(row, list) else 0} cells")
            table[str(row[0])] = tuple(map(str, row[1:]))
        form = check_form(document.get("key_form"))
        return cls(str(document.get("key")), form, tuple(map(str, columns)), table)
