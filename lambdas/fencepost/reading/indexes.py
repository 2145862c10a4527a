"""Reading a version's value indexes (``core.versions.value_index``) from the bucket: each directory read once per
container and kept (least recently used first out, within ``INDEX_CACHE_BYTES`` of their estimated size), and a value's
index lines read from any of them with one ranged GET."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final, Protocol

from fencepost.core.storage.members import MemberError, lines_from
from fencepost.core.storage.objects import index_key, values_key
from fencepost.core.versions.value_index import Directory, IndexFileError
from fencepost.errors import NotIndexed, Unavailable
from fencepost.model import VersionInfo
from fencepost.reading.caches import LruCache, index_bytes

DIRECTORIES_KEPT: Final = 1024  # directories held per container at most, whatever their size


class IndexFiles(Protocol):
    def read_from(self, key: str, offset: int) -> Callable[[int], bytes] | None: ...
    def lines_if_any(self, key: str) -> Iterator[bytes] | None: ...


class ValueIndexes:
    """The value indexes of the versions lookups serve, read through ``files`` (opened on first use)."""

    def __init__(self, files: Callable[[], IndexFiles] | None, max_bytes: int, kept: int = DIRECTORIES_KEPT) -> None:
        self.files = files
        self._directories: LruCache[tuple[str, int, int], Directory] = LruCache(kept, max_bytes)

    def ordinal(self, info: VersionInfo, column: str) -> int:
        """Which of the version's indexes is ``column``'s; ``NotIndexed`` naming the indexed columns otherwise."""
        if column not in info.indexed:
            indexed = ", ".join(info.indexed) if info.indexed else "none"
            raise NotIndexed(
                f"column {column[:80]!r} of dataset {info.dataset!r} (version {info.version}) is not indexed; "
                f'indexed columns: {indexed} (a folder names them in _settings.json: "index": [...])'
            )
        return info.indexed.index(column)

    def directory(self, info: VersionInfo, column: str) -> Directory:
        key = (info.dataset, info.version, self.ordinal(info, column))
        found = self._directories.get(key)
        if found is not None:
            return found
        lines = self._files().lines_if_any(values_key(*key))
        if lines is None:
            raise Unavailable(f"the value index of {column!r} in version {info.version} of {info.dataset!r} is missing")
        try:
            directory = Directory.parse(lines)
        except IndexFileError as error:
            raise Unavailable(f"the value index of {column!r} is unreadable: {error}") from None
        self._directories.put(key, directory, index_bytes(directory))  # (one larger than the budget: read each time)
        return directory

    def lines(self, info: VersionInfo, column: str, directory: Directory, line: int) -> Iterator[tuple[int, bytes]]:
        """The index's lines from the ``line``-th on, each with its number."""
        at = directory.position(line)
        read = self._files().read_from(index_key(info.dataset, info.version, self.ordinal(info, column)), at.offset)
        if read is None:
            raise Unavailable(f"the value index of {column!r} in version {info.version} of {info.dataset!r} is missing")
        try:
            for number, (_, text) in enumerate(lines_from(read, at), start=line):
                yield number, text
        except MemberError as error:
            raise Unavailable(f"the value index of {column!r} is unreadable: {error}") from None

    def _files(self) -> IndexFiles:
        if self.files is None:
            raise Unavailable("the lookup function has no bucket to read indexes from (BUCKET_NAME is not set)")
        return self.files()
