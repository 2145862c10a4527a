"""A build's recipe, written once: a folder's objects read with its settings (the join, the rules, the columns its
settings name, its keyed joins and its GeoLite2 export profiles checked, invalid rows within the folder's allowance,
at least one range), then flattened into the pieces and directories lookups use. The loader (``loading.building``,
``loading.publishing``) and ``make plan`` (``planner.local_build``) both build with it: the planner refuses what the
loader refuses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from fencepost.core.folders.joins import JoinError, folder_join
from fencepost.core.folders.rules import RuleError, apply_rules, check_named
from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.keyed.join_spec import check_joins
from fencepost.core.keyed.keyed_table import KeyedError
from fencepost.core.space.addresses import FAMILIES
from fencepost.core.storage import chunks
from fencepost.core.storage.items import ItemTooLarge
from fencepost.core.storage.keys import Directory
from fencepost.core.storage.objects import is_fetched, release_dates, release_key, settings_keys
from fencepost.core.versions.build import FamilyRanges, Pieces
from fencepost.core.versions.mmdb_profiles import ProfileError, check_folder
from fencepost.loading.progress import LoadFailure, Read
from fencepost.loading.reading import Reader
from fencepost.model import ObjectRef


def read_folder(
    reader: Reader, dataset: str, build: int, objects: list[ObjectRef], settings: FolderSettings, *, deadline: float
) -> Read:
    """The folder's rows, read and checked with its settings. Raises ``LoadFailure``: a setting that cannot apply
    to these rows (named by the settings' key), a file that cannot be read, more invalid rows than allowed, no
    range at all."""
    try:
        join = folder_join([obj.key for obj in objects], settings.join, settings.locale)
        read = reader.read(
            dataset, build, objects, settings.read_options, deadline, join=join, max_unjoined=settings.max_unjoined_rows
        )
        read.columns = apply_rules(read.collector, read.columns, settings.constants, settings.gap_when)
        check_named(read.columns, settings.index, "index")
        check_named(read.columns, settings.numeric, "numeric")
        check_joins(settings.keyed_joins, read.columns, dataset)
        check_folder(read.columns, settings.exports, settings.mmdb_profile_columns)
    except (JoinError, RuleError, ItemTooLarge, KeyedError, ProfileError) as error:
        raise LoadFailure(str(error), object_key=settings_keys(dataset)[-1]) from None
    if read.problems.count > settings.max_invalid_rows:
        reason = f"{read.problems.count} invalid rows; the folder's settings allow {settings.max_invalid_rows}"
        raise LoadFailure(reason, earlier=read.problems.kept, total=read.problems.total + 1, rows=read.rows)
    if not len(read.collector):
        raise LoadFailure("the objects hold no ranges")
    read.last_modified = fetched_dates(reader.files, dataset, objects)
    return read


@runtime_checkable
class Manifests(Protocol):
    """Where a release manifest can be read: the bucket (the local files of ``make plan`` keep none)."""

    def get_json(self, key: str) -> Any: ...


def fetched_dates(files: object, dataset: str, objects: list[ObjectRef]) -> dict[str, str]:
    """The ``Last-Modified`` the publisher sent with each fetched object of the build (its release's manifest, as
    the folder's source wrote it): part of the data's own date (``core.versions.data_dates``). Empty when the folder
    holds nothing fetched, or when ``files`` keeps no manifests (``make plan``'s local files)."""
    fetched = {obj.key for obj in objects if is_fetched(obj.key)}
    if not fetched or not isinstance(files, Manifests):
        return {}
    try:
        document = files.get_json(release_key(dataset))
    except ValueError:  # a manifest that is no JSON: no dates (the build needs none)
        return {}
    return {key: value for key, value in release_dates(document).items() if key in fetched}


@dataclass(frozen=True, slots=True)
class Flat:
    """A read flattened: each family's ranges, pieces and directory, and the book the chunks are cut from."""

    families: dict[int, FamilyRanges]
    pieces: dict[int, Pieces]
    directories: dict[int, Directory]
    book: chunks.Book


def flatten(read: Read, settings: FolderSettings) -> Flat:
    """The pieces lookups find and the directories their Queries follow. Raises ``LoadFailure`` when the
    directories would span more partitions than the build's limits allow."""
    families = read.collector.families
    pieces = {family: families[family].pieces(merge_neighbours=settings.merge_neighbours) for family in FAMILIES}
    directories = {family: families[family].directory(pieces[family]) for family in FAMILIES}
    partitions = sum(len(directory.partitions) for directory in directories.values())
    if partitions > read.limits.max_directory_partitions:
        reason = read.limits.directory_too_large(partitions)
        raise LoadFailure(reason, earlier=read.problems.kept, total=read.problems.total + 1, rows=read.rows)
    return Flat(families, pieces, directories, chunks.Book(families, pieces))
