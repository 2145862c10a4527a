"""Files in their publishers' layouts load through the loader as they are published (gzipped or not, a JSON
document pretty-printed over many lines): AWS ``ip-ranges.json``, a CAIDA prefix-to-AS file, an RFC 8805 geofeed."""

from __future__ import annotations

import gzip

import pytest

from fencepost.model import LoadStatus
from tests.fakes import DATASET, World
from tests.support.published import AWS, GEOFEED, PFX2AS


@pytest.mark.parametrize(
    ("name", "body", "ranges"),
    [
        ("ip-ranges.json", AWS.encode(), 3),  # four entries, one prefix under two services
        ("routeviews-rv2-20261127-1200.pfx2as.gz", gzip.compress(PFX2AS.encode()), 6),
        ("geofeed.csv", GEOFEED.encode(), 5),
    ],
    ids=["aws", "pfx2as", "geofeed"],
)
def test_a_published_file_loads_as_it_is(name: str, body: bytes, ranges: int) -> None:
    world = World()
    world.upload(f"{DATASET}/{name}", body)
    world.settle()
    record = world.record()
    assert (record.status, record.live, record.ranges) == (LoadStatus.READY, 1, ranges)


def test_a_json_document_over_the_folder_s_max_document_bytes_fails_its_load_saying_so() -> None:
    world = World()
    world.upload(f"{DATASET}/_settings.json", b'{"limits": {"max_document_bytes": 1024}}')
    world.upload(f"{DATASET}/ip-ranges.json", AWS.encode() + b" " * 1024)  # the same document, padded past 1 KB
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, None)
    (problem,) = record.load.problems
    assert "a JSON document larger than 1,024 bytes (MAX_DOCUMENT_BYTES) is not read" in problem.reason
