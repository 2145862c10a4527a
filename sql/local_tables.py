"""Where ``make sql`` finds the datasets and each kept version, and the version's Parquet table in a cache folder.

The datasets come from ``--ranges [NAME=]FILE`` (built with the loader's recipe, no service: one version, live since
1970), else the stack ``TABLE_NAME`` and ``BUCKET_NAME`` name (on AWS), else the local stack ``make run`` started
(its state file, ``local.state``): as ``make enrich`` finds them. From a stack: every dataset with a live version,
each version its history still keeps, with the instants it was live, and its table file from the bucket
(``enrichment.sources.ServiceSource``).

A version's table (``tables.parquet_table.write_table``) is written once into the cache folder under a key made of
what identifies the version (the stack, the dataset, the version, when it was built; for files, their bytes), so
that the next session reads it at once. Reading the Parquet versions the loader keeps in the bucket (under
``tables/``) instead of writing them here is a later step.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from fencepost.core.versions.history import Period
from fencepost.enrichment.sources import FileSource, ServiceSource
from fencepost.enrichment.table import VersionTable
from fencepost.errors import ServiceError
from fencepost.model import LivePointer
from fencepost.tables.parquet_table import write_table
from fencepost.tables.schema import FORMAT


class CatalogError(ValueError):
    """The datasets cannot be reached or built; the message says why and what to do."""


@dataclass(slots=True)
class Version:
    """One version of a dataset: its periods live, the key of its table in the cache, and how to build the table."""

    dataset: str
    version: int
    periods: list[Period]
    key: str
    build: Callable[[], VersionTable] = field(repr=False)
    numeric: tuple[str, ...] = ()


@dataclass(slots=True)
class Dataset:
    name: str
    live: int
    versions: list[Version]


def _digest(*parts: str | bytes) -> str:
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(part if isinstance(part, bytes) else part.encode())
        hashed.update(b"\0")
    return hashed.hexdigest()[:20]


def group_files(ranges: Sequence[str]) -> dict[str, list[Path]]:
    """``NAME=FILE`` pairs (or a file alone: named by its name up to the first dot), the files of each name."""
    grouped: dict[str, list[Path]] = {}
    for given in ranges:
        name, equals, path = given.partition("=")
        if not equals:
            name, path = Path(given).name.split(".")[0], given
        grouped.setdefault(name, []).append(Path(path))
    return grouped


def file_datasets(ranges: Sequence[str], names: Sequence[str] = ()) -> list[Dataset]:
    """The datasets of ``--ranges`` (or those of ``names``): each keyed by its files' bytes, built only if its table is
    not cached."""
    grouped = group_files(ranges)
    missing = sorted(set(names) - set(grouped))
    if missing:
        raise CatalogError(f"no ranges are given for {', '.join(missing)}")
    found = []
    for name, files in grouped.items():
        if names and name not in names:
            continue
        try:
            key = _digest(FORMAT, name, *(path.read_bytes() for path in files))
        except OSError as error:
            raise CatalogError(f"the ranges of {name!r} cannot be read: {error}") from None

        def build(name: str = name, files: list[Path] = files) -> VersionTable:
            source = FileSource(name, files)
            return source.table(source.info(source.live(name)))

        found.append(Dataset(name, 1, [Version(name, 1, [Period(0.0, None)], key, build)]))
    return found


def _stack_environment() -> None:
    """The local stack's environment, unless ``TABLE_NAME`` names a stack on AWS."""
    if "TABLE_NAME" in os.environ:
        return
    from local.state import NoStack, running

    try:
        os.environ.update(running().environment)
    except NoStack as error:
        raise CatalogError(f"{error}; or name a stack on AWS with TABLE_NAME and BUCKET_NAME, or give RANGES") from None


def _versions(source: ServiceSource, name: str, stack: str) -> list[Version]:
    timeline = source.timeline(name)
    found = []
    for number, periods in sorted(timeline.periods().items()):
        if not timeline.kept(number):
            continue
        info = source.info(LivePointer(name, number, periods[-1].start))
        key = _digest(FORMAT, stack, name, str(number), info.created_at)
        found.append(Version(name, number, periods, key, partial(source.table, info), info.numeric))
    return found


def service_datasets(names: Sequence[str] = ()) -> list[Dataset]:
    """Every dataset of the stack with a live version (or those of ``names``), and its kept versions."""
    _stack_environment()
    from fencepost.aws.dynamo import Tables, control_client
    from fencepost.aws.s3 import Bucket, make_s3_client
    from fencepost.bootstrap.enrich_wiring import source_over
    from fencepost.settings import LookupSettings

    settings = LookupSettings.from_env(os.environ)
    if settings.bucket is None:
        raise CatalogError("BUCKET_NAME names the stack's bucket, where each version keeps its table file")
    tables = Tables.connect(control_client(), settings.table.table_name)
    source = source_over(tables, Bucket(make_s3_client(), settings.bucket), settings.caches)
    stack = f"{settings.table.table_name}|{settings.bucket}"  # with the version's build time: the version's key
    found = []
    records = [record for record in tables.list_datasets() if not names or record.name in names]
    missing = sorted(set(names) - {record.name for record in records})
    if missing:
        raise CatalogError(f"the stack has no dataset named {', '.join(missing)}")
    for record in records:
        if record.live is None or record.retired:
            continue
        try:
            found.append(Dataset(record.name, record.live, _versions(source, record.name, stack)))
        except ServiceError as error:  # read as it changes (a version deleted meanwhile): the others still open
            print(f"sql: dataset {record.name} left out: {error.message}", file=sys.stderr)
    return found


def cached_table(version: Version, folder: Path) -> Path:
    """The version's Parquet table in ``folder``, written now unless an earlier session wrote it."""
    readable = re.sub(r"[^A-Za-z0-9_.-]", "_", version.dataset)
    path = folder / f"{readable}-v{version.version}-{version.key}.parquet"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    print(f"sql: writing the table of {version.dataset} version {version.version}...", file=sys.stderr)
    scratch = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        write_table(version.build(), scratch, numeric=version.numeric)
        scratch.replace(path)
    finally:
        scratch.unlink(missing_ok=True)
    return path
