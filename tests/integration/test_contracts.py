"""The in-memory fakes of the state-machine tests keep the rules of the real data layer: the same transitions,
refused in the same cases, on the fakes and on DynamoDB Local."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import pytest

from fencepost.dynamo import Tables
from fencepost.dynamo.errors import NothingToRollBack, NotLatestRequest, SupersededLoad
from fencepost.loading.service import BuildStore, DatasetStore
from fencepost.model import BuildRecord, BuildState, DatasetRecord, LoadStatus, ObjectRef, Phase, Switch
from tests.fakes import World


class Datasets(DatasetStore, Protocol):
    def rollback(self, name: str) -> DatasetRecord: ...


Adapters = tuple[Datasets, BuildStore]


def _fakes(_: Any) -> Adapters:
    world = World()
    return world.datasets, world.builds


def _dynamodb_local(request: pytest.FixtureRequest) -> Adapters:
    client, table = request.getfixturevalue("ddb_table")
    tables = Tables.connect(client, table)
    return tables.datasets, tables.builds


ADAPTERS: list[Callable[[pytest.FixtureRequest], Adapters]] = [_fakes, _dynamodb_local]


@pytest.fixture(params=ADAPTERS, ids=["fakes", "dynamodb-local"])
def adapters(request: pytest.FixtureRequest) -> Adapters:
    make: Callable[[pytest.FixtureRequest], Adapters] = request.param
    return make(request)


def test_dataset_transitions_keep_their_rules(adapters: Adapters) -> None:
    datasets, _ = adapters
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
    # A version goes live only if it is newer than the live one and above the floor
    objects = [ObjectRef("geo/a.csv", "e", 1)]

    def switch(build: int) -> Switch:
        return datasets.switch_live("geo", build, ranges=1, objects=objects, loaded_at="t", now=now).result

    assert switch(2) == Switch.SWITCHED
    assert switch(2) == Switch.ALREADY_LIVE
    assert switch(1) == Switch.STALE
    assert datasets.end_load("geo", 2, LoadStatus.READY, now, phase=Phase.DONE)
    with pytest.raises(NothingToRollBack):
        datasets.rollback("geo")  # no previous version yet
    # A load that finds the folder unchanged keeps the live version and raises the floor
    datasets.note_request("geo", now)
    assert datasets.start_build("geo", 3, now).builds == 3
    assert not datasets.keep_live("geo", 2, now)
    assert datasets.keep_live("geo", 3, now)
    assert switch(3) == Switch.STALE  # at the floor
    kept = datasets.get("geo", consistent=True)
    assert kept is not None
    assert (kept.status, kept.load.phase, kept.live, kept.floor) == (LoadStatus.READY, Phase.UNCHANGED, 2, 3)
    # Only the latest load retires the dataset; the record as it was comes back
    with pytest.raises(SupersededLoad):
        datasets.retire("geo", 2, now)
    assert datasets.retire("geo", 3, now).live == 2
    retired = datasets.get("geo", consistent=True)
    assert retired is not None
    assert (retired.retired, retired.live, retired.load.phase) == (True, None, Phase.RETIRED)
    assert [record.name for record in datasets.all()] == ["geo"]


def test_build_records_count_each_chunk_once(adapters: Adapters) -> None:
    _, builds = adapters
    assert builds.count_chunk("geo", 1, 1, 10) is None  # no such build
    assert not builds.set_state("geo", 1, BuildState.DELETING)  # never creates a record
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
    done = builds.count_chunk("geo", 1, 2, 10)
    assert done is not None
    assert done.complete
    assert not builds.set_state("geo", 1, BuildState.LIVE, expect=[BuildState.PLANNING])
    assert builds.set_state("geo", 1, BuildState.ABANDONED, expect=[BuildState.WRITING])
    assert [(b.build, b.state, b.written) for b in builds.all("geo")] == [(1, BuildState.ABANDONED, 20)]
    builds.delete("geo", 1)
    assert builds.all("geo") == []
