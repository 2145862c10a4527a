"""``GET /datasets/{name}/export?format=csv|cidr|mmdb|parquet[&profile=P][&version=N]``: a whole version as a file
(``core.versions.exports``). Parquet is asked of the tables function (its queue), the others of the loader.
``profile`` (with ``mmdb``) asks for a GeoLite2 record shape (``core.versions.mmdb_profiles``): a version whose
columns cannot answer a field the profile needs is refused here (400), before anything is asked.

The first request for a version and format puts its marker in the bucket (only if there is none: S3's conditional
write), asks the loader to write it (one message on its data queue) and answers ``202`` with ``Retry-After``; while
the marker is there, ``202`` again without asking twice, however many requests arrive at once; once written, ``303``
to a link that downloads it for ``LINK_SECONDS`` (signed by the function: the download goes to the bucket, not
through the API). Written once per version and format, deleted with the version. A request costs one or two reads
of the bucket (the export, its marker), and the first one a conditional write and a message.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Final, Protocol

from fencepost.core.versions.exports import (
    EXPORTABLE,
    FORMATS,
    LINK_SECONDS,
    REQUESTED,
    ExportFormat,
    Marker,
    export_object,
    marker_object,
    should_ask,
)
from fencepost.core.versions.mmdb_profiles import MMDB_PREFIX, ProfileError, check_profile, profile_named
from fencepost.errors import (
    ExportTooLarge,
    InvalidRequest,
    Unavailable,
    UnknownDataset,
    VersionGone,
    check_dataset_name,
)
from fencepost.http.responses import NO_STORE, HttpResponse, json_response
from fencepost.model import DatasetRecord, VersionInfo

RETRY_AFTER: Final = 5  # seconds a client waits before asking again


class ExportLinks(Protocol):
    def modified(self, key: str) -> float | None: ...
    def presigned(self, key: str, seconds: int) -> str: ...
    def marker(self, key: str) -> Marker | None: ...
    def claim(self, key: str, state: str, *, replacing: str | None) -> bool: ...


class ExportRequests(Protocol):
    def __call__(self, dataset: str, version: int, form: str) -> None:
        """Ask the loader to write the export (it writes nothing if it is written or being written)."""
        ...


class Exports:
    def __init__(
        self,
        record: Callable[[str], DatasetRecord | None],
        files: Callable[[], ExportLinks] | None,
        requests: ExportRequests | None,
        *,
        max_mmdb_ranges: int,
        kept: Callable[[str, int], bool] = lambda _dataset, _version: False,
        ranges_of: Callable[[str, int], int | None] = lambda _dataset, _version: None,
        clock: Callable[[], float] = time.time,
        parquet: bool = False,
        version_of: Callable[[str, int], VersionInfo] | None = None,
    ) -> None:
        self.record, self.files, self.requests, self.clock = record, files, requests, clock
        self.version_of = version_of  # a version's columns, which a profile is checked against
        self.parquet = parquet  # whether a tables function writes Parquet here (TABLES_QUEUE_URL)
        self.max_mmdb_ranges, self.kept, self.ranges_of = max_mmdb_ranges, kept, ranges_of

    def answer(self, dataset: str, query: Mapping[str, str]) -> HttpResponse:
        check_dataset_name(dataset)
        chosen = _chosen(query)
        asked = query.get("version")
        if asked is not None and not (asked.isascii() and asked.isdigit() and 0 < len(asked) <= 15 and int(asked)):
            raise InvalidRequest(f"invalid version {asked[:20]!r}: a version number, such as 3")
        if self.files is None or self.requests is None:
            raise Unavailable("exports are not set up here (BUCKET_NAME and EXPORT_QUEUE_URL)")
        if chosen.name == "parquet" and not self.parquet:
            raise Unavailable("Parquet exports are not set up here (TABLES_QUEUE_URL: the tables function)")
        record = self.record(dataset)
        if record is None or record.retired or record.live is None:
            raise UnknownDataset(f"no dataset named {dataset!r} is being served")
        version = record.live if asked is None else int(asked)
        if version not in (record.live, record.previous) and not self.kept(dataset, version):
            raise VersionGone(
                f"version {version} of dataset {dataset!r} is not kept: see GET /datasets/{dataset}/versions"
            )
        ranges = record.ranges if version == record.live else self.ranges_of(dataset, version) or 0
        if chosen.mmdb and ranges > self.max_mmdb_ranges:
            raise ExportTooLarge(
                f"version {version} of dataset {dataset!r} holds {ranges:,} ranges; a MaxMind DB export holds at most "
                f"{self.max_mmdb_ranges:,} (MMDB_EXPORT_MAX_RANGES: the loader builds it in memory): export csv or cidr"
            )
        self._check_version(dataset, version, chosen.profile)
        files = self.files()
        key = export_object(dataset, version, chosen)
        body: dict[str, object] = {
            "dataset": dataset,
            "version": version,
            "format": "mmdb" if chosen.mmdb else chosen.name,
        }
        if chosen.profile is not None:
            body["profile"] = chosen.profile
        if files.modified(key) is not None:
            link = files.presigned(key, LINK_SECONDS)
            return json_response(303, {**body, "status": "READY", "url": link}, {**NO_STORE, "Location": link})
        marker_key = marker_object(dataset, version, chosen)
        marker = files.marker(marker_key)
        if should_ask(marker, self.clock()) and files.claim(
            marker_key, REQUESTED, replacing=None if marker is None else marker.etag
        ):
            self.requests(dataset, version, chosen.name)
        headers = {**NO_STORE, "Retry-After": str(RETRY_AFTER)}
        return json_response(202, {**body, "status": "WRITING", "retry_after": RETRY_AFTER}, headers)

    def _check_version(self, dataset: str, version: int, profile: str | None) -> None:
        """``InvalidRequest`` for a keyed dataset's version (no ranges to export), or when the version's columns (and
        the mapping it was built with) cannot answer a field the ``profile`` needs."""
        if self.version_of is None:
            return
        info = self.version_of(dataset, version)
        if info.keyed is not None:
            raise InvalidRequest(
                f"dataset {dataset!r} is a keyed dataset: it has no ranges to export; read a key at "
                f"/datasets/{dataset}/keys/<key>"
            )
        if profile is None:
            return
        try:
            check_profile(profile_named(profile), info.columns, info.profile_columns)
        except ProfileError as error:
            raise InvalidRequest(f"version {version} of dataset {dataset!r}: {error}") from None


def _chosen(query: Mapping[str, str]) -> ExportFormat:
    """The format (and profile) asked for, or ``InvalidRequest`` naming those there are."""
    form = query.get("format", "csv")
    chosen = FORMATS.get(form)
    if chosen is None:
        raise InvalidRequest(f"invalid format {form[:20]!r}: one of {', '.join(FORMATS)}")
    profile = query.get("profile")
    if profile is None:
        return chosen
    if chosen.name != "mmdb":
        raise InvalidRequest(f"profile applies to format=mmdb only, not {chosen.name}")
    try:
        return EXPORTABLE[MMDB_PREFIX + profile_named(profile).name]
    except ProfileError as error:
        raise InvalidRequest(str(error)) from None
