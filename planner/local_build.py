"""A build made from local files exactly as the loader makes it from a folder: the same recipe (``loading.recipe``:
readers, settings, joins, rules, the checks that refuse a build, flattening and keys) and the same shuffled chunks;
its items priced and placed for the capacity model."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from capacity.placement import position, write_units
from capacity.simulation import Write
from fencepost.core.folders.limits import Limits
from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.formats.archives import unpacked
from fencepost.core.formats.lines import object_lines
from fencepost.core.storage import chunks
from fencepost.core.storage.items import item_bytes
from fencepost.core.storage.keys import Directory
from fencepost.core.storage.objects import SETTINGS_NAME
from fencepost.core.versions.build import Pieces
from fencepost.declared import CHUNK_ITEMS
from fencepost.loading.reading import Reader
from fencepost.loading.recipe import flatten, read_folder
from fencepost.model import ObjectRef

VERSION = 1


class _Quiet:
    """Telemetry and progress that go nowhere: the planner prints its own."""

    def info(self, *_: Any, **__: Any) -> None: ...
    def warning(self, *_: Any, **__: Any) -> None: ...
    def exception(self, *_: Any, **__: Any) -> None: ...
    def add_metric(self, *_: Any, **__: Any) -> None: ...
    def update_load(self, *_: Any, **__: Any) -> bool:
        return True

    @property
    def logger(self) -> _Quiet:
        return self

    @property
    def metrics(self) -> _Quiet:
        return self


class LocalFiles:
    """Local files under the keys a folder would give them (``<dataset>/<name>``)."""

    def __init__(self, paths: dict[str, Path], limits: Limits) -> None:
        self.paths, self.limits = paths, limits

    def lines(self, key: str) -> Iterator[bytes]:
        with self.paths[key].open("rb") as handle:
            yield from object_lines(handle, self.limits)

    def read_bytes(self, key: str, limit: int) -> bytes:
        with self.paths[key].open("rb") as handle:
            return unpacked(key, handle, limit)


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
    keys = {f"{dataset}/{path.name}": path for path in files if path.name != SETTINGS_NAME}
    settings_path = next((path for path in files if path.name == SETTINGS_NAME), None)
    settings = (
        FolderSettings.parse(settings_path.read_bytes(), str(settings_path)) if settings_path else FolderSettings()
    )
    limits = Limits()
    quiet = _Quiet()
    reader = Reader(
        files=LocalFiles(keys, limits),
        datasets=quiet,
        telemetry=quiet,
        clock=time.time,
        monotonic=time.monotonic,
        limits=limits,
    )
    objects = [ObjectRef(key, "", path.stat().st_size) for key, path in sorted(keys.items())]
    read = read_folder(reader, dataset, version, objects, settings, deadline=float("inf"))
    flat = flatten(read, settings)
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
