"""MaxMind DB objects in a build: read whole (``Blobs.read_bytes``) within the build's limits, their networks
collected by ``fencepost.core.formats.mmdb``, with progress reported and the deadline kept as for line files.

The object's bytes count against ``max_object_bytes`` and ``max_build_bytes`` (decompressed), and so do its records
as rows (what is left of ``max_build_bytes``, ``core.formats.mmdb.records``); the ranges it adds (its networks, their
IPv4 copies and alias copies) count against ``max_build_rows``, as lines do.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from fencepost.core.formats.base import FileError, ReadOptions
from fencepost.core.formats.mmdb import MmdbSummary, Room, read_mmdb
from fencepost.loading.ports import Telemetry
from fencepost.loading.progress import Read, Watch

__all__ = ["Blobs", "read_mmdb_object"]


@runtime_checkable
class Blobs(Protocol):
    def read_bytes(self, key: str, limit: int) -> bytes:
        """The object, decompressed (a tar archive's ``.mmdb`` member), at most ``limit + 1`` bytes of it."""
        ...


def read_mmdb_object(
    files: object, read: Read, options: ReadOptions, watch: Watch, telemetry: Telemetry
) -> MmdbSummary:
    """One MaxMind DB object (``watch.key``) into ``read``. Raises ``FileError``."""
    if not isinstance(files, Blobs):
        raise FileError(None, "this loader's files cannot be read whole: MaxMind DB files are not supported")
    key, limits = watch.key, read.limits
    room = min(limits.max_object_bytes, limits.max_build_bytes - read.bytes)
    data = files.read_bytes(key, room)
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
        tick=lambda done: watch.check(None, read.lines, work=done),
    )
    read.lines += summary.ranges
    read.bytes += len(data)
    read.aliases.update(summary.aliases)
    if summary.build_epoch is not None:
        read.epochs[key] = summary.build_epoch
    telemetry.logger.info(
        "read a MaxMind DB file",
        extra={"object": key, "networks": summary.rows, "ranges": summary.ranges, "aliases": list(summary.aliases)},
    )
    return summary
