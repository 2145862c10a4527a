"""The in-memory fakes of the state-machine tests keep the rules of the real data layer: the same transitions,
refused in the same cases, on the fakes and on DynamoDB Local."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Protocol

import pytest

from fencepost.aws.dynamo import Tables
from fencepost.core.folders.fingerprint import fingerprint
from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.storage.keys import Directory
from fencepost.core.versions.data_dates import DataDate
from fencepost.errors import NothingToRollBack, NotLatestRequest, SupersededLoad
from fencepost.loading.service import BuildStore, DatasetStore, VersionStore
from fencepost.model import (
    BuildRecord,
    BuildState,
    DatasetRecord,
    LivePointer,
    LoadStatus,
    ObjectRef,
    Phase,
    Switch,
    VersionHeader,
    VersionInfo,
)
from tests.fakes import World


class Datasets(DatasetStore, Protocol):
    def rollback(self, name: str, now: float) -> DatasetRecord: ...
    def get_live(self, name: str) -> LivePointer | None: ...
    def put(self, record: DatasetRecord) -> None: ...


Adapters = tuple[Datasets, BuildStore, VersionStore]


def _fakes(_: Any) -> Adapters:
    world = World()
    return world.datasets, world.builds, world.versions


def _dynamodb_local(request: pytest.FixtureRequest) -> Adapters:
    client, table = request.getfixturevalue("ddb_table")
    tables = Tables.connect(client, table)
    return tables.datasets, tables.builds, tables.versions


ADAPTERS: list[Callable[[pytest.FixtureRequest], Adapters]] = [_fakes, _dynamodb_local]


@pytest.fixture(params=ADAPTERS, ids=["fakes", "dynamodb-local"])
def adapters(request: pytest.FixtureRequest) -> Adapters:
    make: Callable[[pytest.FixtureRequest], Adapters] = request.param
    return make(request)


def _finalizing(builds: BuildStore, build: int, objects: list[ObjectRef] | None = None) -> None:
    """A build record whose chunks are all written, being finalized (what ``switch_live`` expects)."""
    builds.put(BuildRecord("geo", build, state=BuildState.FINALIZING, objects=objects or []))


def test_dataset_transitions_keep_their_rules(adapters: Adapters) -> None:
    datasets, builds, _ = adapters
    now = 1000.0
    # Only the latest change builds, and only once; a failed attempt may plan its own request again
    assert datasets.note_request("geo", now) == 1
    assert datasets.note_request("geo", now) == 2
    with pytest.raises(NotLatestRequest):
        datasets.start_build("geo", 1, now)
    record = datasets.start_build("geo", 2, now)
    assert (record.builds, record.planned) == (1, 2)
    with pytest.raises(NotLatestRequest):
        datasets.start_build("geo", 2, now)
    assert not datasets.release_request("geo", 1)
    assert datasets.release_request("geo", 2)
    assert datasets.start_build("geo", 2, now).builds == 2
    # Only the latest load reports progress and ends
    assert not datasets.update_load("geo", 1, now, phase=Phase.WRITING)
    assert datasets.update_load("geo", 2, now, phase=Phase.WRITING, rows_read=5)
    assert not datasets.end_load("geo", 1, LoadStatus.FAILED, now, phase=Phase.FAILED)
    loading = datasets.get("geo", consistent=True)
    assert loading is not None
    assert (loading.status, loading.load.version, loading.load.phase, loading.load.rows_read) == (
        LoadStatus.LOADING,
        2,
        Phase.WRITING,
        5,
    )
    # A version goes live only if it is newer than the live one, above the floor, and being finalized
    objects = [ObjectRef("geo/a.csv", "e", 1)]

    def switch(build: int) -> Switch:
        return datasets.switch_live("geo", build, ranges=1, objects=objects, loaded_at="t", now=now).result

    for build in (1, 2, 3):
        _finalizing(builds, build)
    assert datasets.get_live("geo") is None
    assert switch(2) == Switch.SWITCHED
    assert datasets.get_live("geo") == LivePointer("geo", 2, now)
    assert switch(2) == Switch.ALREADY_LIVE
    assert switch(1) == Switch.STALE
    assert datasets.end_load("geo", 2, LoadStatus.READY, now, phase=Phase.DONE, items_written=4000)
    # A chunk counted before the last one reports late: the ended load keeps its final figures
    assert not datasets.update_load("geo", 2, now + 1, phase=Phase.WRITING, items_written=3500)
    ended = datasets.get("geo", consistent=True)
    assert ended is not None
    assert (ended.status, ended.load.phase, ended.load.items_written) == (LoadStatus.READY, Phase.DONE, 4000)
    with pytest.raises(NothingToRollBack):
        datasets.rollback("geo", now)  # no previous version yet
    # A load that finds the folder unchanged keeps the live version and raises the floor
    datasets.note_request("geo", now)
    assert datasets.start_build("geo", 3, now).builds == 3
    assert not datasets.keep_live("geo", 2, now)
    assert datasets.keep_live("geo", 3, now)
    assert switch(3) == Switch.STALE  # at the floor
    kept = datasets.get("geo", consistent=True)
    assert kept is not None
    assert (kept.status, kept.load.phase, kept.live, kept.floor) == (LoadStatus.READY, Phase.UNCHANGED, 2, 3)
    # Only the latest load retires the dataset; the record as it was comes back; the pointer says nothing is served
    with pytest.raises(SupersededLoad):
        datasets.retire("geo", 2, now)
    assert datasets.retire("geo", 3, now).live == 2
    retired = datasets.get("geo", consistent=True)
    assert retired is not None
    assert (retired.retired, retired.live, retired.load.phase) == (True, None, Phase.RETIRED)
    assert datasets.get_live("geo") is None
    assert [record.name for record in datasets.all()] == ["geo"]


def test_an_abandoned_build_never_goes_live_and_a_build_that_went_live_is_never_abandoned(adapters: Adapters) -> None:
    datasets, builds, _ = adapters
    datasets.note_request("geo", 1.0)
    datasets.start_build("geo", 1, 1.0)
    _finalizing(builds, 1)
    _finalizing(builds, 2)
    # A build abandoned before its switch stays out: nothing of it is served
    assert builds.set_state("geo", 1, BuildState.ABANDONED, expect=[BuildState.FINALIZING])
    switched = datasets.switch_live("geo", 1, ranges=1, objects=[], loaded_at="t", now=5.0)
    assert switched.result == Switch.ABANDONED
    record = datasets.get("geo", consistent=True)
    assert record is not None
    assert record.live is None
    assert datasets.get_live("geo") is None
    # A build that went live carries the moment of its switch, and can no longer be abandoned
    assert datasets.switch_live("geo", 2, ranges=1, objects=[], loaded_at="t", now=6.0).result == Switch.SWITCHED
    went_live = builds.get("geo", 2)
    assert went_live is not None
    assert (went_live.state, went_live.switched) == (BuildState.FINALIZING, 6.0)
    assert not builds.set_state("geo", 2, BuildState.ABANDONED, expect=[BuildState.FINALIZING])
    assert builds.set_state("geo", 2, BuildState.LIVE, expect=[BuildState.FINALIZING])


def test_a_rollback_serves_the_previous_version_as_its_header_describes_it(adapters: Adapters) -> None:
    datasets, builds, versions = adapters
    digests = {1: settings_digest(FolderSettings()), 2: settings_digest(FolderSettings(max_invalid_rows=3))}
    sources = {v: [ObjectRef("geo/a.csv", f"etag{v}", 10 * v)] for v in (1, 2)}
    datasets.note_request("geo", 1.0)
    for version in (1, 2):
        info = VersionInfo("geo", version, ("country",), {4: Directory(4), 6: Directory(6)})
        header = VersionHeader(("country",), version * 100, version * 100, sources[version], f"t{version}")
        versions.put(info, dataclasses.replace(header, settings=digests[version]))
        _finalizing(builds, version)
        switched = datasets.switch_live(
            "geo",
            version,
            ranges=version * 100,
            objects=sources[version],
            loaded_at=f"live{version}",
            now=1000.0 * version,
            settings=digests[version],
        )
        assert switched.result == Switch.SWITCHED
    # When version 2 is rolled back at t = 5000
    after = datasets.rollback("geo", 5000.0)
    # Then the record describes version 1, whole, and holds the sources rolled away from
    stored = datasets.get("geo", consistent=True)
    assert stored == after
    assert (after.live, after.previous, after.ranges, after.loaded_at) == (1, 2, 100, "t1")
    assert (after.objects, after.settings, after.live_since) == (sources[1], digests[1], 5000.0)
    assert after.held == fingerprint([("geo/a.csv", "etag2")], digests[2])
    assert datasets.get_live("geo") == LivePointer("geo", 1, 5000.0)
    # And rolling forward serves version 2 again, described as version 2, with nothing held
    forward = datasets.rollback("geo", 6000.0)
    assert (forward.live, forward.previous, forward.objects, forward.settings) == (2, 1, sources[2], digests[2])
    assert (forward.held, forward.live_since, forward.loaded_at) == (None, 6000.0, "t2")
    assert datasets.get_live("geo") == LivePointer("geo", 2, 6000.0)


def test_a_record_without_a_pointer_is_served_from_the_record(adapters: Adapters) -> None:
    # Given a table written before live pointers existed: a record only
    datasets, _, _ = adapters
    datasets.put(DatasetRecord(name="old", live=4, status=LoadStatus.READY, live_since=7.0))
    datasets.put(DatasetRecord(name="gone", live=None, retired=True))
    # Then lookups read its live version from the record
    assert datasets.get_live("old") == LivePointer("old", 4, 7.0)
    assert datasets.get_live("gone") is None
    assert datasets.get_live("never") is None


def test_build_records_count_each_chunk_once(adapters: Adapters) -> None:
    _, builds, _ = adapters
    assert builds.count_chunk("geo", 1, 1, 10) is None  # no such build
    assert not builds.set_state("geo", 1, BuildState.DELETING)  # never creates a record
    assert not builds.mark_deleting("geo", 1, 5.0)
    assert builds.get("geo", 1) is None
    builds.put(BuildRecord("geo", 1, ranges=4, items=20, objects=[ObjectRef("geo/a.csv", "e", 1)]))
    first = builds.count_chunk("geo", 1, 1, 10)
    assert first is not None
    assert (first.done, first.written) == ({1}, 10)
    assert builds.count_chunk("geo", 1, 1, 10) is None  # counted once
    writing = builds.start_writing("geo", 1, 2)
    assert writing is not None
    assert (writing.state, writing.chunks, writing.complete) == (BuildState.WRITING, 2, False)
    assert builds.start_writing("geo", 1, 2) is None  # only from PLANNING
    assert not builds.mark_deleting("geo", 1, 5.0)  # not while it may still be written
    done = builds.count_chunk("geo", 1, 2, 10)
    assert done is not None
    assert done.complete
    assert not builds.set_state("geo", 1, BuildState.LIVE, expect=[BuildState.PLANNING])
    assert builds.set_state("geo", 1, BuildState.ABANDONED, expect=[BuildState.WRITING])
    assert builds.mark_deleting("geo", 1, 5.0)
    assert [(b.build, b.state, b.written, b.delete_after) for b in builds.all("geo")] == [
        (1, BuildState.DELETING, 20, 5.0)
    ]
    builds.delete("geo", 1)
    assert builds.all("geo") == []


def test_a_versions_dates_travel_from_its_header_to_the_record_and_to_lookups(adapters: Adapters) -> None:
    # Given two versions: one whose data states its date (a MaxMind DB build epoch), one whose data does not
    datasets, builds, versions = adapters
    stated = DataDate("2026-11-24T10:31:02Z", "mmdb", "city/GeoLite2-City.mmdb")
    datasets.note_request("city", 1.0)
    for version, own in ((1, stated), (2, None)):
        info = VersionInfo("city", version, ("country",), {4: Directory(4), 6: Directory(6)})
        header = VersionHeader(("country",), 1, 1, [], f"2026-11-2{version}T00:00:00Z", data_date=own)
        versions.put(info, header)
        builds.put(BuildRecord("city", version, state=BuildState.FINALIZING))
        datasets.switch_live("city", version, ranges=1, objects=[], loaded_at="t", now=1000.0 * version)
        record = datasets.get("city", consistent=True)
        # Then the record shows the live version's build time and its data's date (none for version 2)
        assert record is not None
        assert (record.built_at, record.data_date) == (header.created_at, own)
        # And lookups, which read the version's header, know them too
        read = versions.get("city", version)
        assert read is not None
        assert (read.created_at, read.data_date) == (header.created_at, own)
    # And a rollback serves the dates of the version it serves again
    after = datasets.rollback("city", 5000.0)
    assert (after.built_at, after.data_date) == ("2026-11-21T00:00:00Z", stated)
    assert datasets.get("city", consistent=True) == after
