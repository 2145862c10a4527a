"""Reading a version's value indexes (``core.value_index``) from the bucket: each directory read once per container
and kept (a few, least recently used first out), and a value's index lines read from any of them with one ranged
GET."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Final, Protocol

from fencepost.core.members import MemberError, lines_from
from fencepost.core.objects import index_key, values_key
from fencepost.core.value_index import Directory, IndexFileError
from fencepost.errors import NotIndexed, Unavailable
from fencepost.model import VersionInfo

DIRECTORIES_KEPT: Final = 8  # directories held per container (one is a few MB for a column of 100,000 values)


class IndexFiles(Protocol):
    def read_from(self, key: str, offset: int) -> Callable[[int], bytes] | None: ...
    def lines_if_any(self, key: str) -> Iterator[bytes] | None: ...


class ValueIndexes:
    """The value indexes of the versions lookups serve, read through ``files`` (opened on first use)."""

    def __init__(self, files: Callable[[], IndexFiles] | None, kept: int = DIRECTORIES_KEPT) -> None:
        self.files, self.kept = files, kept
        self._directories: OrderedDict[tuple[str, int, int], Directory] = OrderedDict()
        self._lock = threading.Lock()

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
        with self._lock:
            found = self._directories.get(key)
            if found is not None:
                self._directories.move_to_end(key)
                return found
        lines = self._files().lines_if_any(values_key(*key))
        if lines is None:
            raise Unavailable(f"the value index of {column!r} in version {info.version} of {info.dataset!r} is missing")
        try:
            directory = Directory.parse(lines)
        except IndexFileError as error:
            raise Unavailable(f"the value index of {column!r} is unreadable: {error}") from None
        with self._lock:
            self._directories[key] = directory
            while len(self._directories) > self.kept:
                self._directories.popitem(last=False)
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
