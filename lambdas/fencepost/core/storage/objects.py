"""The bucket's key layout: which objects are data, which dataset each feeds, where a folder's settings are, and
where a build keeps its report (``_reports/``, expired by the bucket after a while) and the files its version is
read from later (``_kept/``: its pieces, changes and value indexes, never expired, deleted with their version).

``geo/v4.csv`` and ``geo/v6.csv.gz`` make the dataset ``geo``; objects at the bucket root, or in ``default/``, make
the dataset ``default``. A key with any path segment starting with ``_`` or ``.`` is not data (reports and settings
live there) and never starts a load, except ``<dataset>/_fetched/<name>``: the objects a folder's source
(``_source.json``, ``core.sources``) fetched, which are the folder's data like any other; its release manifest
``<dataset>/_fetched/_release.json`` is no data, but its writing (as a release starts, and once it is written)
tells the loader when a release is whole.
"""

from __future__ import annotations

from fencepost.core.folders.backfill import HISTORY_FOLDER, DateError, date_instant
from fencepost.core.storage.keys import DATASET_NAME_RULE, is_dataset_name

DEFAULT_DATASET = "default"
SETTINGS_NAME = "_settings.json"
SOURCE_NAME = "_source.json"  # where a folder's data is published (core.sources)
REPORTS_PREFIX = "_reports/"  # load reports and notes: read by people, expired by the bucket's lifecycle rule
KEPT_PREFIX = "_kept/"  # what a version is read from later: no lifecycle rule covers it
FETCHED_FOLDER = "_fetched"  # <dataset>/_fetched/<name>: the objects a folder's _source.json fetches
RELEASE_NAME = "_release.json"  # <dataset>/_fetched/_release.json: what the source's last release wrote, written last
EXPORTS_PREFIX = "_exports/"
# Each version as a Parquet table (handlers/tables.py): ``_tables/<dataset>/`` is the location of the dataset's Glue
# tables, one folder a version (``version=<n>/``); under ``_`` so that it is never a dataset's folder of data.
TABLES_PREFIX = "_tables/"
# The files a build keeps for its version, under ``KEPT_PREFIX``, all deleted with their version. The lookup function
# reads the changes (the latest build's diff), the pieces (diffs between any two kept versions, and the next build's
# baseline) and the value indexes (reverse lookups); enrichment reads the table file (``core.storage.table_files``).
# Versions built before ``KEPT_PREFIX`` existed kept them beside their report, as these patterns under
# ``REPORTS_PREFIX``: they are read there when ``KEPT_PREFIX`` has none (``legacy_key``) and deleted there too (IAM
# grants are made of the patterns).
KEPT_FILES = ("*.pieces.gz", "*.changes.gz", "*.index.*.gz", "*.values.*.gz", "*.table.gz", "*.keys.gz")
LEGACY_KEPT = tuple(f"{REPORTS_PREFIX}{pattern}" for pattern in KEPT_FILES[:4])  # table files came with _kept/


class FolderError(ValueError):
    """A folder name or settings object that cannot be used; the message says why."""


def is_data_key(key: str) -> bool:
    if not key or key.endswith("/"):
        return False  # a folder placeholder
    parts = key.split("/")
    if is_fetched(key):  # what a folder's source fetched is its data
        parts = [parts[0], parts[2]]
    return not any(part.startswith(("_", ".")) or not part for part in parts)


def dataset_of(key: str) -> str | None:
    """The dataset a data object belongs to; None for keys that are not data. Raises for bad folder names."""
    if not is_data_key(key):
        return None
    folder, slash, _ = key.partition("/")
    if not slash:
        return DEFAULT_DATASET
    if not is_dataset_name(folder):
        raise FolderError(f"folder {folder[:80]!r} cannot be a dataset: {DATASET_NAME_RULE}")
    return folder


def dated_of(key: str) -> tuple[str, str] | None:
    """The dataset and date of an object in a dated folder (``<dataset>/_history/<YYYY-MM-DD>/<name>``, or
    ``_history/<date>/<name>`` at the root for the default dataset); None for any other key. Raises for a folder
    name that is not a date, or a dataset name that cannot be one."""
    parts = key.split("/")
    at = 1 if len(parts) > 1 and parts[1] == HISTORY_FOLDER else 0 if parts[0] == HISTORY_FOLDER else None
    if at is not None and len(parts) == at + 2 and is_data_key(parts[-1]):
        raise FolderError(
            f"{HISTORY_FOLDER}/{parts[-1][:80]} is in no dated folder: past files go in {HISTORY_FOLDER}/YYYY-MM-DD/"
        )
    if at is None or len(parts) < at + 3 or not is_data_key("/".join(parts[at + 2 :])):
        return None
    dataset = parts[0] if at else DEFAULT_DATASET
    if not is_dataset_name(dataset):
        raise FolderError(f"folder {dataset[:80]!r} cannot be a dataset: {DATASET_NAME_RULE}")
    try:
        date_instant(parts[at + 1])
    except DateError as error:
        raise FolderError(f"{HISTORY_FOLDER}/{parts[at + 1][:40]}/ cannot hold a past version: {error}") from None
    return dataset, parts[at + 1]


def dated_prefixes(dataset: str) -> list[str]:
    """Where a dataset's dated folders live: ``name/_history/`` (and ``_history/`` at the root for the default)."""
    return [f"{prefix}{HISTORY_FOLDER}/" for prefix in prefixes_of(dataset)]


def prefixes_of(dataset: str) -> list[str]:
    """Where a dataset's objects live: ``name/``, plus the bucket root for the default dataset."""
    return ["", f"{DEFAULT_DATASET}/"] if dataset == DEFAULT_DATASET else [f"{dataset}/"]


def settings_keys(dataset: str) -> list[str]:
    return [f"{prefix}{SETTINGS_NAME}" for prefix in prefixes_of(dataset)]


def settings_owner(key: str) -> str | None:
    """The dataset whose settings object ``key`` is (its settings are part of what each version is built from);
    None for any other key."""
    folder, slash, name = key.rpartition("/")
    if name != SETTINGS_NAME or "/" in folder:
        return None
    if not slash:
        return DEFAULT_DATASET
    return folder if is_dataset_name(folder) else None


def release_key(dataset: str) -> str:
    return fetched_prefix(dataset) + RELEASE_NAME


def release_owner(key: str) -> str | None:
    """The dataset whose release manifest ``key`` is (its writing ends a release: a build is due); None otherwise."""
    parts = key.split("/")
    if len(parts) != 3 or parts[1:] != [FETCHED_FOLDER, RELEASE_NAME] or not is_dataset_name(parts[0]):
        return None
    return parts[0]


def release_document(objects: dict[str, str] | None, last_modified: dict[str, str] | None = None) -> dict[str, object]:
    """A release manifest: ``objects`` (key to ETag) once the release is written, None while it is being written;
    ``last_modified``: the publisher's ``Last-Modified`` header of each object's download, where it sent one (the
    data's own date, ``core.versions.data_dates``)."""
    return {"complete": objects is not None, "objects": objects or {}, "last_modified": last_modified or {}}


def release_dates(document: object) -> dict[str, str]:
    """The ``Last-Modified`` header of each object of a release manifest (None: none), as its source recorded it."""
    found = document.get("last_modified") if isinstance(document, dict) else None
    if not isinstance(found, dict):
        return {}
    return {key: value for key, value in found.items() if isinstance(key, str) and isinstance(value, str)}


def being_written(document: object) -> bool:
    """Whether a release manifest (None: none) says its release is being written."""
    return isinstance(document, dict) and document.get("complete") is False


def report_key(dataset: str, build: int) -> str:
    return f"{REPORTS_PREFIX}{dataset}/{build}.json"


def pieces_key(dataset: str, build: int) -> str:
    """Where a build keeps its sorted pieces (bounds, answer hashes): the next build's baseline."""
    return f"{KEPT_PREFIX}{dataset}/{build}.pieces.gz"


def table_key(dataset: str, build: int) -> str:
    """Where a build keeps its pieces with what each answers (``core.storage.table_files``): what enrichment joins."""
    return f"{KEPT_PREFIX}{dataset}/{build}.table.gz"


def keys_key(dataset: str, build: int) -> str:
    """Where a keyed dataset's build keeps its whole table of keys (``core.keyed.keyed_table``): what answers join."""
    return f"{KEPT_PREFIX}{dataset}/{build}.keys.gz"


def changes_key(dataset: str, build: int) -> str:
    """Where a build keeps the stretches whose answer changed since the version live when it was built."""
    return f"{KEPT_PREFIX}{dataset}/{build}.changes.gz"


def index_key(dataset: str, build: int, ordinal: int) -> str:
    """Where a build keeps the value index of its ``ordinal``-th indexed column (``core.versions.value_index``)."""
    return f"{KEPT_PREFIX}{dataset}/{build}.index.{ordinal}.gz"


def values_key(dataset: str, build: int, ordinal: int) -> str:
    """Where a build keeps the directory of that index: its members and its distinct values."""
    return f"{KEPT_PREFIX}{dataset}/{build}.values.{ordinal}.gz"


def index_keys(dataset: str, build: int, indexed: int) -> list[str]:
    """Every object of the value indexes of a build with ``indexed`` indexed columns."""
    return [key for n in range(indexed) for key in (index_key(dataset, build, n), values_key(dataset, build, n))]


def legacy_key(key: str) -> str | None:
    """Where a version built before ``KEPT_PREFIX`` existed kept the file ``key`` names; None for other keys."""
    return f"{REPORTS_PREFIX}{key.removeprefix(KEPT_PREFIX)}" if key.startswith(KEPT_PREFIX) else None


def export_key(dataset: str, version: int, extension: str) -> str:
    """Where a version's export of a format (``core.versions.exports.FORMATS``) is kept until the version is deleted."""
    return f"{EXPORTS_PREFIX}{dataset}/{version}.{extension}"


def tables_location(dataset: str) -> str:
    """The folder of a dataset's versions as Parquet (the location of its ``<name>_versions`` Glue table)."""
    return f"{TABLES_PREFIX}{dataset}/"


def parquet_key(dataset: str, version: int) -> str:
    """Where a version's Parquet file is kept until the version is deleted: one file in its partition's folder."""
    return f"{tables_location(dataset)}version={version}/{dataset}-{version}.parquet"


def history_location(dataset: str) -> str:
    """The folder of a dataset's history as Parquet (its ``<name>_history`` Glue table): beside its versions' folders,
    named with ``_`` so that an engine reading the versions' folder skips it."""
    return f"{tables_location(dataset)}_history/"


def history_key(dataset: str) -> str:
    """The file of a dataset's history as Parquet, written again at each registration (in ``history_location``)."""
    return f"{history_location(dataset)}history.parquet"


def parquet_columns_key(dataset: str, version: int) -> str:
    """The columns of a version's Parquet file as JSON, written after it (its presence says the file is whole); a
    name starting with ``_``, which Athena and Spark skip in the table's folder."""
    return f"{tables_location(dataset)}version={version}/_columns.json"


def building_key(export: str) -> str:
    """The marker an export is being written under ``export``: its writer puts it first, and deletes it last."""
    return f"{export}.building"


def is_fetched(key: str) -> bool:
    """An object a folder's source fetched (``<dataset>/_fetched/<name>``; not its release manifest)."""
    parts = key.split("/")
    return len(parts) == 3 and parts[1] == FETCHED_FOLDER and bool(parts[2]) and not parts[2].startswith(("_", "."))


def source_keys(dataset: str) -> list[str]:
    return [f"{prefix}{SOURCE_NAME}" for prefix in prefixes_of(dataset)]


def fetched_prefix(dataset: str) -> str:
    """Where a dataset's fetched objects live: ``<dataset>/_fetched/`` (``default/_fetched/`` for the default)."""
    return f"{prefixes_of(dataset)[-1]}{FETCHED_FOLDER}/"
