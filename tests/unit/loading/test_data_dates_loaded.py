"""The loader dates each version's data as its objects state it (``fencepost.core.versions.data_dates``): an RIR
file's version line before a date in its name, and nothing at all for objects that state no date."""

from __future__ import annotations

from fencepost.core.versions.data_dates import DataDate
from tests.fakes import DATASET, World
from tests.support.loads import A, tsv

APNIC = """\
2.3|apnic|20261124|2|19830613|20261123|+1000
apnic|*|ipv4|*|2|summary
apnic|AU|ipv4|1.0.0.0|256|20110811|assigned|A91872ED
apnic|CN|ipv4|1.0.1.0|256|20110414|allocated|A92E1062
"""


def test_an_rir_files_version_line_dates_the_version_before_its_name() -> None:
    world = World()
    key = f"{DATASET}/delegated-apnic-extended-20261124"
    world.upload(key, APNIC)
    world.settle()
    record = world.record()
    assert record.data_date == DataDate("2026-11-23", "rir", key)
    assert record.built_at is not None
    (build,) = world.build_records().values()
    assert (build.built_at, build.data_date) == (record.built_at, record.data_date)


def test_a_version_whose_objects_state_no_date_has_none() -> None:
    world = World()
    world.upload(f"{DATASET}/blocks.tsv", tsv(A))
    world.settle()
    record = world.record()
    assert record.live is not None
    assert record.data_date is None
    assert record.built_at is not None
