"""The members a source keeps of a downloaded archive (``zip``, ``tar.gz``), each written to a file of its own.

Each pattern of ``members`` (shell-style, matched against a member's file name without its folders) must match
exactly one member: a pattern that matches none or several means the publisher changed its layout, and the release
fails rather than load half of it or the wrong file. Other members are left. Every member kept is bounded by
``max_bytes`` decompressed (a small archive can expand to gigabytes), and an archive of more than ``MAX_ENTRIES``
entries is refused.
"""

from __future__ import annotations

import fnmatch
import lzma
import re
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from fencepost.downloads.fetcher import FetchError

MAX_ENTRIES = 10_000
CHUNK = 1 << 20
_OBJECT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def unpack(
    path: Path, kind: str, patterns: Sequence[str], *, max_bytes: int, directory: Path, shown: str
) -> list[tuple[str, Path]]:
    """The members ``patterns`` name, as ``(file name, path of its contents)`` in the order of the patterns."""
    kept: dict[str, list[tuple[str, Path]]] = {pattern: [] for pattern in patterns}
    try:
        for name, stream in _entries(path, kind, shown):
            wanted = [pattern for pattern in patterns if fnmatch.fnmatchcase(name, pattern)]
            if not wanted:
                continue
            if not _OBJECT_NAME.fullmatch(name):
                raise FetchError(f"{shown}: member {name[:80]!r} cannot name an object")
            copy = _copy(stream, max_bytes, directory, f"{shown}: member {name}")
            for pattern in wanted:
                kept[pattern].append((name, copy))
    except FetchError:
        _discard(kept)
        raise
    except (
        zipfile.BadZipFile,
        tarfile.TarError,
        EOFError,
        zlib.error,
        lzma.LZMAError,
        OSError,
        ValueError,
        RuntimeError,  # an encrypted member
        NotImplementedError,  # a compression zipfile cannot read
    ) as error:
        _discard(kept)
        raise FetchError(f"{shown}: not a readable {kind} archive ({type(error).__name__})") from None
    wrong = {pattern: [name for name, _ in found] for pattern, found in kept.items() if len(found) != 1}
    if wrong:
        _discard(kept)
        pattern, names = next(iter(wrong.items()))
        count = "no member" if not names else f"{len(names)} members ({', '.join(names[:5])})"
        raise FetchError(f"{shown}: {pattern!r} matches {count}: the archive's layout is not the one expected")
    return [found[0] for found in kept.values()]


def _entries(path: Path, kind: str, shown: str) -> Iterator[tuple[str, IO[bytes]]]:
    """Each file of the archive: its name without folders, and a stream of its contents."""
    count = 0
    if kind == "zip":
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                count = _counted(count, shown)
                if not info.is_dir():
                    with archive.open(info) as stream:
                        yield info.filename.rsplit("/", 1)[-1], stream
        return
    with tarfile.open(path, mode="r:*") as archive:
        for member in archive:
            count = _counted(count, shown)
            if member.isfile():
                contents = archive.extractfile(member)
                if contents is not None:
                    yield member.name.rsplit("/", 1)[-1], contents


def _counted(count: int, shown: str) -> int:
    if count >= MAX_ENTRIES:
        raise FetchError(f"{shown}: the archive holds more than {MAX_ENTRIES:,} entries")
    return count + 1


def _copy(stream: IO[bytes], max_bytes: int, directory: Path, what: str) -> Path:
    handle = tempfile.NamedTemporaryFile(dir=directory, prefix="member-", delete=False)  # noqa: SIM115
    path, size = Path(handle.name), 0
    try:
        with handle:
            while chunk := stream.read(CHUNK):
                size += len(chunk)
                if size > max_bytes:
                    raise FetchError(f"{what} is more than {max_bytes:,} bytes decompressed")
                handle.write(chunk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def _discard(kept: dict[str, list[tuple[str, Path]]]) -> None:
    for found in kept.values():
        for _, path in found:
            path.unlink(missing_ok=True)
