"""Archive bombs as a hostile publisher makes them: a tar holding a huge member of zeros, then ``data.csv``,
compressed with bzip2 or gzip. Nothing of the size is ever written: both formats decode a file of several streams
(members) one after the other, so the zeros are one compressed block of ``BLOCK`` zeros, written again and again
(8 GiB of zeros is 512 copies: ~20 KB of bzip2, ~8 MB of gzip)."""

from __future__ import annotations

import bz2
import functools
import gzip
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

BLOCK: Final = 16 << 20
DATA: Final = b"1.0.0.0/24\n"
GIB: Final = 1 << 30

COMPRESSORS: Final[dict[str, Callable[[bytes], bytes]]] = {
    "bz2": bz2.compress,
    "gz": functools.partial(gzip.compress, compresslevel=9, mtime=0),
}


@functools.cache
def _zeros(kind: str, size: int) -> bytes:
    return COMPRESSORS[kind](bytes(size))


def tar_bomb(path: Path, kind: str, zeros: int = 8 * GIB) -> Path:
    """``path``: a tar of ``bomb/zeros.bin`` (``zeros`` bytes, a multiple of 512) then ``bomb/data.csv``."""
    assert zeros % 512 == 0
    head = _header("bomb/zeros.bin", zeros)
    data = _header("bomb/data.csv", len(DATA)) + DATA + bytes(-len(DATA) % 512) + bytes(1024)  # and the end
    compress = COMPRESSORS[kind]
    with path.open("wb") as out:
        out.write(compress(head))
        for _ in range(zeros // BLOCK):
            out.write(_zeros(kind, BLOCK))
        if zeros % BLOCK:
            out.write(compress(bytes(zeros % BLOCK)))
        out.write(compress(data))
    return path


def _header(name: str, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.size = size
    return info.tobuf(format=tarfile.GNU_FORMAT)  # GNU: a size of 8 GiB or more, in base 256
