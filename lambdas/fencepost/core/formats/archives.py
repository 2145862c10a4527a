"""Binary objects read whole (MaxMind DB files): gzip unpacked by its magic bytes, a tar archive's ``.mmdb`` member
taken out, never more than a bound of decompressed bytes read (a small archive can expand to gigabytes).

MaxMind ships ``GeoLite2-City_20260101.tar.gz`` holding ``GeoLite2-City_20260101/GeoLite2-City.mmdb`` beside a
licence and a copyright file: the archive's first ``.mmdb`` member is the database.
"""

from __future__ import annotations

import gzip
import tarfile
import zlib
from typing import IO, Final, Protocol, cast

from fencepost.core.formats.base import FileError

MMDB_SUFFIXES: Final = (".mmdb", ".mmdb.gz")
ARCHIVE_SUFFIXES: Final = (".tar.gz", ".tgz", ".tar")
ARCHIVE_SLACK: Final = 1 << 20  # what an archive may hold besides its database (headers, licence, readme)


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class _Counted:
    """A stream that refuses to give more than ``bound`` bytes in all."""

    def __init__(self, body: Readable, bound: int) -> None:
        self.body, self.bound, self.taken = body, bound, 0

    def read(self, size: int = -1, /) -> bytes:
        want = self.bound + 1 - self.taken if size < 0 else min(size, self.bound + 1 - self.taken)
        data = self.body.read(max(want, 0)) if want > 0 else b""
        self.taken += len(data)
        if self.taken > self.bound:
            raise FileError(None, f"the archive holds more than {self.bound:,} bytes, decompressed")
        return data


class Prefixed:
    """A readable stream with some bytes already taken from its front put back."""

    def __init__(self, head: bytes, body: Readable) -> None:
        self.head, self.body = head, body

    def read(self, size: int = -1, /) -> bytes:
        if not self.head:
            return self.body.read(size)
        head, self.head = self.head, b""
        if size < 0:
            return head + self.body.read()
        if size <= len(head):
            self.head = head[size:]
            return head[:size]
        return head + self.body.read(size - len(head))


def unpacked(key: str, body: Readable, limit: int) -> bytes:
    """The object's data, decompressed, at most ``limit + 1`` bytes (more than ``limit`` means it holds more).

    Raises ``FileError`` for corrupt gzip, an unreadable archive, or an archive without an ``.mmdb`` member.
    """
    head = body.read(2)
    stream: Readable = Prefixed(head, body)
    try:
        if head == b"\x1f\x8b":
            stream = gzip.GzipFile(fileobj=cast("IO[bytes]", stream), mode="rb")
        if not key.lower().endswith(ARCHIVE_SUFFIXES):
            return stream.read(limit + 1)
        with tarfile.open(fileobj=cast("IO[bytes]", _Counted(stream, limit + ARCHIVE_SLACK)), mode="r|") as archive:
            for member in archive:
                if member.isfile() and member.name.lower().endswith(".mmdb"):
                    extracted = archive.extractfile(member)
                    assert extracted is not None  # a regular file
                    return extracted.read(limit + 1)
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise FileError(None, f"the gzip data is truncated or corrupt ({error})") from None
    except tarfile.TarError as error:
        raise FileError(None, f"not a readable tar archive ({error})") from None
    raise FileError(
        None,
        "the archive holds no .mmdb file: archives are read only as MaxMind DB downloads "
        "(upload CSV files as .csv or .csv.gz)",
    )
