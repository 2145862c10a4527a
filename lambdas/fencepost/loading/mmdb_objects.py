"""MaxMind DB objects in a build: read whole (``Blobs.read_bytes``) within the build's limits, their networks
collected by ``fencepost.core.formats.mmdb``, with progress reported and the deadline kept as for line files.

The object's bytes count against ``max_object_bytes`` and ``max_build_bytes`` (decompressed), and so do its records
as rows (what is left of ``max_build_bytes``, ``core.mmdb.records``); the ranges it adds (its networks, their IPv4
copies and alias copies) count against ``max_build_rows``, as lines do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from fencepost.core.formats.archives import is_binary_key
from fencepost.core.formats.columns import FileError, ReadOptions
from fencepost.core.formats.mmdb import MmdbSummary, Room, read_mmdb

if TYPE_CHECKING:
    from fencepost.loading.reading import Read, Reader

__all__ = ["Blobs", "is_binary_key", "read_mmdb_object"]

PROGRESS_EVERY = 5.0  # seconds between progress updates while the tree is walked


@runtime_checkable
class Blobs(Protocol):
    def read_bytes(self, key: str, limit: int) -> bytes:
        """The object, decompressed (a tar archive's ``.mmdb`` member), at most ``limit + 1`` bytes of it."""
        ...


def read_mmdb_object(
    reader: Reader, key: str, read: Read, options: ReadOptions, *, at: tuple[str, int, float]
) -> MmdbSummary:
    """One MaxMind DB object into ``read``; ``at`` is the dataset, the build and the deadline. Raises ``FileError``."""
    if not isinstance(reader.files, Blobs):
        raise FileError(None, "this loader's files cannot be read whole: MaxMind DB files are not supported")
    limits = read.limits
    room = min(limits.max_object_bytes, limits.max_build_bytes - read.bytes)
    data = reader.files.read_bytes(key, room)
    if len(data) > room:
        too_large = len(data) > limits.max_object_bytes
        raise FileError(None, limits.object_too_large() if too_large else limits.build_too_large())
    summary = read_mmdb(
        key,
        data,
        options,
        read.collector,
        read.problems,
        limits=limits,
        room=Room(ranges=limits.max_build_rows - read.lines, bytes=limits.max_build_bytes - read.bytes - len(data)),
        tick=_ticker(reader, key, read, at),
    )
    read.lines += summary.ranges
    read.bytes += len(data)
    read.aliases.update(summary.aliases)
    reader.telemetry.logger.info(
        "read a MaxMind DB file",
        extra={"object": key, "networks": summary.rows, "ranges": summary.ranges, "aliases": list(summary.aliases)},
    )
    return summary


def _ticker(reader: Reader, key: str, read: Read, at: tuple[str, int, float]) -> Callable[[int], None]:
    dataset, build, deadline = at
    next_report = reader.monotonic() + PROGRESS_EVERY

    def tick(done: int) -> None:
        nonlocal next_report
        now = reader.monotonic()
        if now >= deadline:
            raise FileError(
                None,
                "reading the objects took longer than one invocation allows: give the loader more memory "
                "(and so more CPU) or split the folder's data",
            )
        if now >= next_report:
            reader.datasets.update_load(dataset, build, reader.clock(), rows_read=read.lines)
            reader.telemetry.logger.info("reading", extra={"dataset": dataset, "object": key, "work": done})
            next_report = now + PROGRESS_EVERY

    return tick
