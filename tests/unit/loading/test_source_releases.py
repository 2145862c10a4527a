"""A release a folder's source writes is built whole: while its manifest says it is being written, no build is made
of half of it; the manifest written last builds it, and the Last-Modified it keeps dates the version's data."""

from __future__ import annotations

import json

from fencepost.core.storage.objects import release_document, release_key
from fencepost.core.versions.data_dates import DataDate
from fencepost.model import LoadStatus
from tests.fakes import DATASET, World
from tests.support.loads import A, B, tsv

BLOCKS, PLACES = f"{DATASET}/_fetched/part-1.tsv", f"{DATASET}/_fetched/part-2.tsv"


def test_a_release_being_written_is_not_built_until_its_manifest_says_it_is_whole() -> None:
    world = World()
    manifest = release_key(DATASET)
    # The source starts a release: its manifest first, then its objects one at a time, each notified
    world.upload(manifest, json.dumps(release_document(None)))
    world.upload(BLOCKS, tsv(A))
    world.settle()
    assert world.record().live is None  # half a release: nothing built
    world.upload(PLACES, tsv(B))
    world.settle()
    assert world.record().live is None
    # The manifest, written last, lists what the release wrote: now it is built, whole
    etags = {ref.key: ref.etag for ref in world.bucket.list_data(DATASET)}
    world.upload(manifest, json.dumps(release_document(etags)))
    world.settle()
    record = world.record()
    assert record.status == LoadStatus.READY
    assert record.live is not None
    assert sorted(o.key for o in record.objects) == [BLOCKS, PLACES]


def test_a_folder_changed_beside_a_whole_release_is_built_as_any_upload() -> None:
    world = World(folder={"max_added_percent": None})  # B adds 39% to what A answers: the unattended gates refuse
    world.upload(BLOCKS, tsv(A))
    etags = {ref.key: ref.etag for ref in world.bucket.list_data(DATASET)}
    world.upload(release_key(DATASET), json.dumps(release_document(etags)))
    world.settle()
    first = world.record().live
    assert first is not None
    world.upload(PLACES, tsv(B))  # put there by hand: the manifest says no release is being written
    world.settle()
    assert world.record().live != first
    assert sorted(o.key for o in world.record().objects) == [BLOCKS, PLACES]


def test_a_releases_last_modified_is_its_versions_data_date_and_a_name_dates_the_rest() -> None:
    # Given a release whose manifest keeps the Last-Modified the publisher sent for one of its two files
    world = World()
    dated = f"{DATASET}/_fetched/ip2asn-20261120.tsv"
    world.upload(BLOCKS, tsv(A))
    world.upload(dated, tsv(B))
    etags = {ref.key: ref.etag for ref in world.bucket.list_data(DATASET)}
    headers = {BLOCKS: "Tue, 24 Nov 2026 10:31:02 GMT", "elsewhere/x.tsv": "Mon, 01 Jan 2024 00:00:00 GMT"}
    world.upload(release_key(DATASET), json.dumps(release_document(etags, headers)))
    world.settle()
    # Then the version's data is as old as its oldest dated file: the other file's name, a day older than the header
    record = world.record()
    assert record.data_date == DataDate("2026-11-20", "name", dated)
    assert record.built_at is not None
    # And a release of the one file the header dates is dated by it (keys outside the build are not read)
    world = World()
    world.upload(BLOCKS, tsv(A))
    etags = {ref.key: ref.etag for ref in world.bucket.list_data(DATASET)}
    world.upload(release_key(DATASET), json.dumps(release_document(etags, headers)))
    world.settle()
    assert world.record().data_date == DataDate("2026-11-24T10:31:02Z", "last-modified", BLOCKS)
