"""``GET /datasets/{name}/versions``: a dataset's kept versions, each with when it was live, newest first, paged,
and what became of each of its dated folders (``fencepost.core.folders.backfill``).

Each version is listed with its dates (``built_at``, ``data_date``) as its build record keeps them. Three reads per
page: the dataset's history (``fencepost.core.versions.history``), its build records (what each version
holds, and when its deletion is due) and its dated folders' states, each answered from the container's cache for a
few seconds (``http.dataset_routes.Listings``). A version is listed while it is kept: live, the
rollback target, or inside the folder's ``retain_days``; a deleted one is not (its instants answer
``NO_VERSION_AT``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any, Protocol

from fencepost.core.folders.backfill import Dated
from fencepost.core.versions.history import Period, Timeline, format_instant, newest_first
from fencepost.errors import InvalidRequest, UnknownDataset, check_dataset_name
from fencepost.http.paging import decode_token, encode_token
from fencepost.http.parameters import page_limit
from fencepost.http.responses import json_text
from fencepost.model import BuildRecord, BuildState, DatasetRecord, VersionInfo

_TAG = "versions"


class VersionSource(Protocol):
    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def list_builds(self, dataset: str, *, fresh: bool = False) -> list[BuildRecord]: ...
    def list_dated(self, dataset: str) -> list[Dated]: ...


def _period(period: Period) -> dict[str, str | None]:
    return {"from": format_instant(period.start), "until": None if period.end is None else format_instant(period.end)}


def _kept_until(version: int, record: DatasetRecord, build: BuildRecord) -> str | None:
    """When the version's deletion is due; null while it is served (live or the rollback target) or not scheduled."""
    if version in (record.live, record.previous) and not record.retired:
        return None
    if build.state == BuildState.DELETING and build.delete_after is not None:
        return format_instant(build.delete_after)
    return None


class VersionListing:
    """``timeline``: a dataset's history as lookups read it (``fencepost.reading.past.History.timeline``: cached
    for the cache TTL, and counting a live version loaded before histories were kept)."""

    def __init__(
        self,
        store: VersionSource,
        timeline: Callable[[str], Timeline],
        version: Callable[[str, int], VersionInfo] | None = None,
    ) -> None:
        self.store, self.timeline, self.version = store, timeline, version

    def answer(self, name: str, query: Mapping[str, str]) -> str:
        check_dataset_name(name)
        record = self.store.get_dataset(name)
        if record is None:
            raise UnknownDataset(f"no dataset named {name!r}")
        limit = page_limit(query)
        after = None if query.get("cursor") is None else _after(query["cursor"], name)
        timeline = self.timeline(name)
        periods, gone = timeline.periods(), timeline.gone()
        builds = self._builds(name, [v for v in periods if v not in gone and v != record.live])
        if record.live is not None and record.live not in builds:  # written before build records were kept
            builds[record.live] = BuildRecord(name, record.live, ranges=record.ranges, objects=record.objects)
            builds[record.live].built_at = record.built_at  # its dates as the record took them from its header
            builds[record.live].data_date = record.data_date
        listed = [v for v in newest_first(periods) if v not in gone and v in builds]
        if after is not None:
            listed = [v for v in listed if (round(periods[v][-1].start * 1000), v) < after]
        page, more = listed[:limit], len(listed) > limit
        versions: list[dict[str, Any]] = [
            {
                "version": version,
                "live": [_period(period) for period in reversed(periods[version])],
                "ranges": builds[version].ranges,
                "objects": [{"key": o.key, "etag": o.etag, "size": o.size} for o in builds[version].objects],
                "kept_until": _kept_until(version, record, builds[version]),
                "dated": builds[version].dated,
                "built_at": builds[version].built_at,
                "data_date": _data_date(builds[version]),
            }
            for version in page
        ]
        last = page[-1] if page else None
        cursor = None
        if more and last is not None:
            cursor = encode_token([_TAG, name, round(periods[last][-1].start * 1000), last])
        body: dict[str, Any] = {"dataset": name, "live": record.live, "retain_days": record.retain_days}
        body |= self._columns(record)
        body["versions"] = versions
        dated = [_dated(state, timeline, builds) for state in self.store.list_dated(name)]
        return json_text({**body, "dated": dated, "next": cursor})

    def _builds(self, name: str, shown: list[int]) -> dict[int, BuildRecord]:
        """The dataset's build records by version, read again past the store's cache when the timeline holds a
        version of ``shown`` they lack: the two are cached apart, and a page never says a dated folder READY (its
        version in the timeline) without listing that version."""
        builds = {build.build: build for build in self.store.list_builds(name)}
        if any(version not in builds for version in shown):
            builds = {build.build: build for build in self.store.list_builds(name, fresh=True)}
        return builds

    def _columns(self, record: DatasetRecord) -> dict[str, Any]:
        """The live version's data columns and indexed columns (``values`` routes take these), its key column (a keyed
        dataset's) and the keyed datasets it joins; null when none is live."""
        info = None
        if record.live is not None and self.version is not None:
            with contextlib.suppress(UnknownDataset):
                info = self.version(record.name, record.live)
        if info is None:
            return {"columns": None, "indexed": None, "key": None, "keyed_joins": None}
        joins = [join.document() for join in info.keyed_joins]
        return {"columns": list(info.columns), "indexed": list(info.indexed), "key": info.keyed, "keyed_joins": joins}


def _data_date(build: BuildRecord) -> dict[str, str] | None:
    """A version's data date as listed (``fencepost.core.versions.data_dates``): null when none is known."""
    return None if build.data_date is None else asdict(build.data_date)


def _dated(state: Dated, timeline: Timeline, builds: dict[int, BuildRecord]) -> dict[str, Any]:
    """A dated folder's state as listed: a build abandoned after it was planned (its writes failed) is FAILED."""
    status, reason = state.shown(timeline), state.reason
    build = None if state.build is None else builds.get(state.build)
    if status == "LOADING" and build is not None and build.state in (BuildState.ABANDONED, BuildState.DELETING):
        status, reason = "FAILED", reason or f"the build failed: see the report of version {state.build}"
    return {"date": state.date, "version": state.build, "status": status, "reason": reason}


def _after(token: str, dataset: str) -> tuple[int, int]:
    fields = decode_token(token, 4)
    if fields is None or fields[0] != _TAG or fields[1] != dataset:
        raise InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged")
    start, version = fields[2], fields[3]
    if type(start) is not int or type(version) is not int:
        raise InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged")
    return start, version
