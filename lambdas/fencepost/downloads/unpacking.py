"""The members a source keeps of a downloaded archive, each written to a file of its own; ``unpack`` names the
archive's format exactly, and nothing else is opened:

- ``zip``: a zip file whose members kept are stored or deflated (what every zip tool writes; a bzip2 or LZMA member,
  costlier to decompress per byte, is refused);
- ``tar.gz``: a tar archive compressed with gzip, and only gzip: a bzip2, xz or uncompressed file is refused at
  once by its first bytes, before anything is decompressed.

Each pattern of ``members`` (shell-style, matched against a member's file name without its folders) must match
exactly one member: a pattern that matches none or several means the publisher changed its layout, and the release
fails rather than load half of it or the wrong file. Other members are left. An archive of more than ``MAX_ENTRIES``
entries is refused. Bounds, since a small archive can expand to gigabytes:

- every member kept is at most ``max_bytes`` decompressed;
- all the bytes decompressed from one archive, the members skipped on the way included (a tarball is one gzip
  stream: reaching its last member means decompressing every one before it), are at most ``EXPANSION`` times
  ``max_bytes``;
- the check's deadline is looked at before every member and every chunk read.
"""

from __future__ import annotations

import fnmatch
import gzip
import re
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Final, cast

from fencepost.downloads.bodies import CHUNK
from fencepost.downloads.bounds import Budget, FetchError, said

MAX_ENTRIES: Final = 10_000
# A release's members together are read by one build, which reads at most MAX_BUILD_BYTES (by default max_bytes), so
# a release needs about 1x max_bytes decompressed for what it keeps; 4x leaves three times that for the members
# skipped on the way (licences, readmes, other languages' Locations files), and with the download itself (at most
# max_bytes) fits the fetch function's 3 GB of /tmp at the default 512 MiB. At ~300 MB/s of gzip per core (measured
# here), 4 x 512 MiB is ~7 s of one core, ~25 s of the 512 MB function's share of one: inside a check's 120 s.
EXPANSION: Final = 4
ZIP_METHODS: Final = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
_OBJECT_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
# What a file that is not gzip looks like, by its first bytes: named in the refusal.
_MAGIC: Final = {b"BZh": "bzip2", b"\xfd7zXZ": "xz", b"PK\x03\x04": "zip", b"(\xb5/\xfd": "zstd"}


def unpack(
    path: Path,
    kind: str,
    patterns: Sequence[str],
    *,
    max_bytes: int,
    directory: Path,
    shown: str,
    deadline: float | None = None,
) -> list[tuple[str, Path]]:
    """The members ``patterns`` name, as ``(file name, path of its contents)`` in the order of the patterns."""
    kept: dict[str, list[tuple[str, Path]]] = {pattern: [] for pattern in patterns}
    meter = _Meter(EXPANSION * max_bytes, Budget(shown, float("inf"), deadline), shown)
    try:
        for name, stream in _entries(path, kind, meter, set(patterns)):
            wanted = [pattern for pattern in patterns if fnmatch.fnmatchcase(name, pattern)]
            if not wanted:
                continue
            if not _OBJECT_NAME.fullmatch(name):
                raise FetchError(f"{shown}: member {said(name, 80)!r} cannot name an object")
            copy = _copy(stream, max_bytes, directory, f"{shown}: member {said(name, 100)}")
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
        OSError,
        ValueError,
        RuntimeError,  # an encrypted member
    ) as error:
        _discard(kept)
        raise FetchError(f"{shown}: not a readable {kind} archive ({type(error).__name__})") from None
    wrong = {pattern: [name for name, _ in found] for pattern, found in kept.items() if len(found) != 1}
    if wrong:
        _discard(kept)
        pattern, names = next(iter(wrong.items()))
        listed = ", ".join(said(name, 60) for name in names[:5])
        count = "no member" if not names else f"{len(names)} members ({listed})"
        raise FetchError(f"{shown}: {pattern!r} matches {count}: the archive's layout is not the one expected")
    return [found[0] for found in kept.values()]


class _Meter:
    """Every byte decompressed from one archive, counted against its bound, and the deadline looked at each time."""

    def __init__(self, bound: int, budget: Budget, shown: str) -> None:
        self.bound, self.budget, self.shown, self.taken = bound, budget, shown, 0

    def took(self, size: int) -> None:
        self.taken += size
        if self.taken > self.bound:
            raise FetchError(
                f"{self.shown}: the archive expands to more than {self.bound:,} bytes ({EXPANSION} x max_bytes, "
                "members skipped included): refused"
            )
        self.budget.check(f"unpacking ({self.taken:,} bytes decompressed)")


class _Metered:
    """A decompressed stream (a tarball's gzip, a zip member), every read counted by the meter."""

    def __init__(self, inner: IO[bytes], meter: _Meter) -> None:
        self.inner, self.meter = inner, meter

    def read(self, size: int = -1, /) -> bytes:
        self.meter.took(0)  # the deadline, before anything more is decompressed
        data = self.inner.read(CHUNK if size < 0 else min(size, CHUNK))
        self.meter.took(len(data))
        return data


def _entries(path: Path, kind: str, meter: _Meter, patterns: set[str]) -> Iterator[tuple[str, IO[bytes]]]:
    """Each file of the archive: its name without folders, and a stream of its contents."""
    if kind == "zip":
        yield from _zip_entries(path, meter, patterns)
        return
    if kind != "tar.gz":
        raise FetchError(f"{meter.shown}: unpack {kind!r} is not an archive format this reads")
    with path.open("rb") as raw:
        head = raw.read(8)
        if not head.startswith(b"\x1f\x8b"):
            looks = next((name for magic, name in _MAGIC.items() if head.startswith(magic)), "not gzip")
            raise FetchError(f"{meter.shown}: unpack tar.gz reads gzip only, and this file is {looks}: refused")
        raw.seek(0)
        with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
            stream = cast("IO[bytes]", _Metered(cast("IO[bytes]", unzipped), meter))
            # Stream mode ("r|"): members are read in order, a skipped one read through the meter, never sought past
            with tarfile.open(fileobj=stream, mode="r|", bufsize=CHUNK) as archive:
                count = 0
                for member in archive:
                    count = _counted(count, meter.shown)
                    if member.isfile():
                        contents = archive.extractfile(member)
                        if contents is not None:
                            yield member.name.rsplit("/", 1)[-1], contents


def _zip_entries(path: Path, meter: _Meter, patterns: set[str]) -> Iterator[tuple[str, IO[bytes]]]:
    """A zip's members are found by its central directory: one skipped costs nothing to decompress."""
    with zipfile.ZipFile(path) as archive:
        count = 0
        for info in archive.infolist():
            count = _counted(count, meter.shown)
            name = info.filename.rsplit("/", 1)[-1]
            if info.is_dir() or not any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns):
                continue
            if info.compress_type not in ZIP_METHODS:
                raise FetchError(
                    f"{meter.shown}: member {said(name, 100)} is compressed with method {info.compress_type}: "
                    "unpack zip reads stored and deflated members only"
                )
            meter.took(0)
            with archive.open(info) as stream:
                yield name, cast("IO[bytes]", _Metered(stream, meter))


def _counted(count: int, shown: str) -> int:
    if count >= MAX_ENTRIES:
        raise FetchError(f"{shown}: the archive holds more than {MAX_ENTRIES:,} entries")
    return count + 1


def _copy(stream: IO[bytes], max_bytes: int, directory: Path, what: str) -> Path:
    handle = tempfile.NamedTemporaryFile(dir=directory, prefix="member-", delete=False)  # noqa: SIM115
    path, size = Path(handle.name), 0
    try:
        with handle:
            while chunk := stream.read(CHUNK):  # each read metered at its source (_Metered)
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
