"""The tables of keyed versions a lookup container joins into answers (``core.keyed.keyed_table``): each read whole
from the bucket once, then kept, least recently used first out, within ``KEYED_CACHE_BYTES`` of their estimated size.

A version never changes, so a table kept is right for as long as it is kept: a warm lookup joins with no read at all.
A table larger than the whole budget is not joined (``Unavailable`` naming the setting): read again for every lookup
it would cost a GET and a parse each time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

from fencepost.core.formats.base import FileError
from fencepost.core.keyed.keyed_table import KeyedError, KeyedTable, TableTooLarge
from fencepost.core.storage.objects import keys_key
from fencepost.errors import Unavailable
from fencepost.model import VersionInfo
from fencepost.reading.caches import LruCache

TABLES_KEPT: Final = 64  # keyed versions held per container at most, whatever their size


def object_bound(max_text: int) -> int:
    """The most of a stored table read (gzip'd) when its text may hold ``max_text`` bytes: gzip adds 5 bytes a 64 KiB
    block it cannot compress and 18 of its own, so a larger object's text is larger than ``max_text`` too."""
    return max_text + max_text // 8192 + 1024


class KeyedFiles(Protocol):
    def object_if_any(self, key: str, limit: int) -> bytes | None: ...


class KeyedTables:
    """The keyed tables lookups join, read through ``files`` (opened on first use)."""

    def __init__(self, files: Callable[[], KeyedFiles] | None, max_bytes: int, kept: int = TABLES_KEPT) -> None:
        self.files = files
        self.max_bytes = max_bytes
        self._tables: LruCache[tuple[str, int], KeyedTable] = LruCache(kept, max_bytes)

    def table(self, info: VersionInfo) -> KeyedTable:
        """The table of the keyed version ``info``: from memory, or read once; ``Unavailable`` when it cannot be."""
        key = (info.dataset, info.version)
        found = self._tables.get(key)
        if found is not None:
            return found
        if self.files is None:
            raise Unavailable("the lookup function has no bucket to read keyed tables from (BUCKET_NAME is not set)")
        try:
            body = self.files().object_if_any(keys_key(*key), object_bound(self.max_bytes))
        except FileError:  # more than its text could be within the budget: never read whole
            raise Unavailable(_too_large(info.dataset, self.max_bytes)) from None
        if body is None:
            raise TableMissing(f"the table of version {info.version} of keyed dataset {info.dataset!r} is missing")
        try:
            table = KeyedTable.decode(body, max_text=self.max_bytes)  # its text is smaller than the table it makes
        except TableTooLarge:
            raise Unavailable(_too_large(info.dataset, self.max_bytes)) from None
        except KeyedError as error:
            raise Unavailable(f"the table of keyed dataset {info.dataset!r} is unreadable: {error}") from None
        if not self._tables.put(key, table, table.memory_bytes()):
            raise Unavailable(
                f"the table of keyed dataset {info.dataset!r} (version {info.version}, {len(table.rows):,} keys, about "
                f"{table.memory_bytes() // 2**20:,} MiB) is larger than KEYED_CACHE_BYTES ({self.max_bytes // 2**20:,} "
                "MiB): it is not joined"
            )
        return table

    def __len__(self) -> int:
        return len(self._tables)

    @property
    def bytes(self) -> int:
        return self._tables.bytes


class TableMissing(Unavailable):
    """A keyed version's table is not in the bucket (never written, or deleted with its version)."""


def _too_large(dataset: str, max_bytes: int) -> str:
    return (
        f"the keyed table's text is larger than {max_bytes:,} bytes (KEYED_CACHE_BYTES): keyed dataset {dataset!r} is "
        "not joined"
    )
