"""Load reports expire (the bucket's lifecycle rule on ``_reports/``), and nothing depends on one being there: a
refusal whose report is gone cannot be accepted, and says why; a report updated after it is gone is written anew."""

from __future__ import annotations

import pytest

from fencepost.core.storage.objects import report_key
from fencepost.loading.accepting import NotAccepted, accept_once
from fencepost.loading.reports import Reports
from fencepost.model import BuildRecord, LoadStatus
from tests.fakes import DATASET, World
from tests.support import V4_FILE, read_tsv

ROWS = read_tsv(V4_FILE, 300)


def _refused() -> World:
    world = World()
    world.upload("geo/a.tsv", "".join("\t".join(row) + "\n" for row in ROWS))
    world.settle()
    world.upload("geo/a.tsv", "".join("\t".join(row) + "\n" for row in ROWS[:30]))  # 90% gone: refused
    world.settle()
    assert (world.record().status, world.record().load.version) == (LoadStatus.FAILED, 2)
    return world


def _accept(world: World) -> None:
    accept_once(
        DATASET,
        folder=world.bucket,
        reports=world.bucket,
        datasets=world.datasets,
        outbox=world.queues,
        clock=world.clock,
    )


def test_a_refusal_is_accepted_while_its_report_is_kept() -> None:
    world = _refused()
    _accept(world)
    world.settle()
    assert (world.record().status, world.record().live) == (LoadStatus.READY, 3)


def test_a_refusal_whose_report_expired_is_not_accepted_and_says_why() -> None:
    world = _refused()
    world.bucket.delete_object(report_key(DATASET, 2))
    with pytest.raises(NotAccepted, match="the report of build 2 is gone: upload the folder's files again"):
        _accept(world)
    assert world.record().live == 1


def test_a_report_updated_after_it_expired_is_written_anew() -> None:
    world = _refused()
    world.bucket.delete_object(report_key(DATASET, 2))
    reports = Reports(documents=world.bucket, clock=world.clock)
    reports.update(BuildRecord(DATASET, 2), "FAILED", "a reason")
    document = world.report(report_key(DATASET, 2))
    assert (document["dataset"], document["version"], document["status"], document["reason"]) == (
        DATASET,
        2,
        "FAILED",
        "a reason",
    )
