"""A build made from local files exactly as the loader makes it from a folder: the same recipe (``loading.recipe``:
readers, settings, joins, rules, the checks that refuse a build, flattening and keys) and the same shuffled chunks;
its items priced and placed for the capacity model."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from capacity.placement import position, write_units
from capacity.simulation import Write
from fencepost.core.storage import chunks
from fencepost.core.storage.items import item_bytes
from fencepost.core.storage.keys import Directory
from fencepost.core.versions.build import Pieces
from fencepost.declared import CHUNK_ITEMS
from fencepost.loading.local_files import build_files

VERSION = 1


@dataclass(frozen=True, slots=True)
class Build:
    dataset: str
    version: int
    rows: int
    items: list[Write]  # in the loader's write order (its seeded shuffle)
    chunks: list[list[Write]]  # the chunk messages, as the loader cuts them
    seconds: float  # reading, flattening and cutting it into messages here, as the loader's build does
    pieces: dict[int, Pieces]  # by family: what lookups find
    directories: dict[int, Directory]  # by family: where a lookup's one Query goes


def read_build(files: Sequence[Path], dataset: str, *, version: int = VERSION, chunk_items: int = CHUNK_ITEMS) -> Build:
    """Read ``files`` (a folder's objects; a ``_settings.json`` among them applies) as version ``version`` of
    ``dataset``. Raises ``fencepost.loading.reading.LoadFailure`` (or a settings error) as a load would fail."""
    started = time.perf_counter()
    built = build_files(files, dataset, version)
    read, flat = built.read, built.flat
    pieces, book = flat.pieces, flat.book
    runs = [run for run, _ in chunks.cut(book.shuffled(seed=version), chunk_items, book.encode)]  # as sent
    seconds = time.perf_counter() - started
    cut: list[list[Write]] = []
    for run in runs:  # the items a chunk writer makes of each message, priced and placed
        cut.append(
            [
                Write(position(item["PK"], item["SK"]), write_units(item_bytes(item)), item["PK"]["S"])
                for item in book.items(run, dataset, version)
            ]
        )
    writes = [write for chunk in cut for write in chunk]
    return Build(dataset, version, read.rows, writes, cut, seconds, pieces, flat.directories)
