"""A version loaded from a cloud's JSON document is dated by the document's own timestamp (``data_date`` with the
source ``document``), before the Last-Modified its release kept; a timestamp in the future dates nothing."""

from __future__ import annotations

import json

from fencepost.core.storage.objects import release_document, release_key
from fencepost.core.versions.data_dates import DataDate
from fencepost.model import LoadStatus
from tests.fakes import DATASET, World
from tests.support.published import AWS, ORACLE

# The simulated clock starts on 2027-01-15 (tests.fakes.kernel): the samples' dates, in November 2026, are past.


def test_an_aws_document_dates_its_version_by_its_create_date() -> None:
    world = World()
    world.upload(f"{DATASET}/ip-ranges.json", AWS)
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.READY, 1)
    assert record.data_date == DataDate("2026-11-28T03:13:04Z", "document", f"{DATASET}/ip-ranges.json")


def test_a_documents_timestamp_comes_before_its_releases_last_modified() -> None:
    world = World()
    key = f"{DATASET}/_fetched/public_ip_ranges.json"
    world.upload(key, ORACLE)
    etags = {ref.key: ref.etag for ref in world.bucket.list_data(DATASET)}
    headers = {key: "Fri, 27 Nov 2026 10:31:02 GMT"}
    world.upload(release_key(DATASET), json.dumps(release_document(etags, headers)))
    world.settle()
    assert world.record().data_date == DataDate("2026-11-28", "document", key)


def test_a_document_dated_in_the_future_is_dated_by_its_name_or_not_at_all() -> None:
    world = World()
    future = AWS.replace("2026-11-28-03-13-04", "2100-01-01-00-00-00")
    world.upload(f"{DATASET}/ip-ranges-20261120.json", future)
    world.settle()
    assert world.record().data_date == DataDate("2026-11-20", "name", f"{DATASET}/ip-ranges-20261120.json")
    world = World()
    world.upload(f"{DATASET}/ip-ranges.json", future)
    world.settle()
    record = world.record()
    assert (record.status, record.data_date) == (LoadStatus.READY, None)
