"""A folder's build made from files on this machine, exactly as the loader makes it from the bucket: the same recipe
(``loading.recipe``: readers, settings, joins, rules, the checks that refuse a build, flattening). ``make plan`` prices
it, and enrichment joins addresses with it (``--ranges FILE``: no service at all)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fencepost.core.folders.limits import Limits
from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.formats.archives import unpacked
from fencepost.core.formats.lines import object_lines
from fencepost.core.storage.objects import SETTINGS_NAME
from fencepost.loading.keyed_building import KeyedRead, read_keyed
from fencepost.loading.progress import LoadFailure, Read
from fencepost.loading.reading import Reader
from fencepost.loading.recipe import Flat, flatten, read_folder
from fencepost.model import ObjectRef


class _Quiet:
    """Telemetry and progress that go nowhere: the tools print their own."""

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
class LocalBuild:
    """A folder's files read and flattened, with the settings they were read with."""

    read: Read
    flat: Flat
    settings: FolderSettings


def build_files(files: Sequence[Path], dataset: str, version: int) -> LocalBuild:
    """Read ``files`` (a folder's objects; a ``_settings.json`` among them applies) as version ``version`` of
    ``dataset``. Raises ``fencepost.loading.progress.LoadFailure`` (or a settings error) as a load would fail."""
    reader, objects, settings = _local(files, dataset)
    if settings.key is not None:
        raise LoadFailure(f"a keyed folder (key {settings.key!r}) holds a table of keys, not ranges")
    read = read_folder(reader, dataset, version, objects, settings, deadline=float("inf"))
    return LocalBuild(read, flatten(read, settings), settings)


def keyed_files(files: Sequence[Path], dataset: str, version: int) -> tuple[KeyedRead, FolderSettings] | None:
    """``files`` read as a keyed folder's objects (``loading.keyed_building``) when their ``_settings.json`` names a
    ``key``, with the settings; None for a folder of ranges. Raises ``LoadFailure`` as a load would fail."""
    reader, objects, settings = _local(files, dataset)
    if settings.key is None:
        return None
    return read_keyed(reader, dataset, version, objects, settings, deadline=float("inf")), settings


def _local(files: Sequence[Path], dataset: str) -> tuple[Reader, list[ObjectRef], FolderSettings]:
    """A reader of ``files`` as the folder's objects, the objects, and the folder's settings."""
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
    return reader, objects, settings
