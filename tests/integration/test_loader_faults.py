"""Faults during a load: after each, the live version is the old one or the complete new one, and every item of
a version that went live is there."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from fencepost.loading.cleanup import Deletions
from local.resources import queue_depth
from tests.faults import FaultyClient, Killed, expected_items, stored_items
from tests.support import V4_FILE, LambdaContext, metric_totals, read_tsv
from tests.support.lookups import assert_complete, lookups, tsv_bytes
from tests.support.stacks import Stack

ROWS = read_tsv(V4_FILE, 4000)


def test_throttling_and_unprocessed_items_are_retried_until_every_item_is_written(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    # Four chunks: the pacer slows each one down after the refusals of the ones before (a chunk takes 10 s by the
    # tenth), as it should; four are enough refusals to show every item written all the same
    rows = ROWS[:1600]
    faulty = FaultyClient(stack.loader.bulk.client, throttle=0.25, unprocessed=0.25)
    stack.loader.bulk.client = faulty  # type: ignore[assignment]
    stack.put("geo/data.tsv", tsv_bytes(rows))
    stack.drain()
    assert faulty.throttled > 10
    assert faulty.held_back > 10
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("READY", 1)
    assert_complete(stack, "geo", 1, rows)
    # And the metrics count the rows, the items, the refusals, the items sent again and the load's duration
    metrics = metric_totals(capsys.readouterr().out)
    assert metrics["RowsRead"] == len(rows)
    assert (
        metrics["ItemsWritten"]
        == record["load"]["items_written"]
        == len(stored_items(stack.ddb, stack.table, "geo", 1))
    )
    assert metrics["Throttles"] >= faulty.throttled + 1
    assert metrics["Retries"] >= faulty.held_back + faulty.throttled
    assert metrics["LoadsSucceeded"] == 1
    assert 0 < metrics["LoadSeconds"] < 300


def test_a_chunk_that_dies_midway_is_delivered_again_and_completes(stack: Stack) -> None:
    faulty = FaultyClient(stack.loader.bulk.client, die_after=7)
    stack.loader.bulk.client = faulty  # type: ignore[assignment]
    stack.put("geo/data.tsv", tsv_bytes(ROWS))
    stack.drain()
    assert faulty.deaths == 1
    record = stack.dataset("geo")
    assert (record["status"], record["version"], record["load"]["items_written"]) == ("READY", 1, len(ROWS))
    assert_complete(stack, "geo", 1, ROWS)


def test_a_chunk_that_keeps_failing_fails_the_load_and_goes_to_the_dead_letter_queue(stack: Stack) -> None:
    # Given a live version
    stack.put("geo/data.tsv", tsv_bytes(ROWS[:2000]))
    stack.drain()
    probes = [f"1.{i}.{i}.1" for i in range(0, 250, 5)]
    before = lookups(stack, "geo", probes)
    # When every write of the next version is throttled, delivery after delivery
    faulty = FaultyClient(stack.loader.bulk.client, throttle=1.0)
    stack.loader.bulk.client = faulty  # type: ignore[assignment]
    stack.data.timeout = 2.5  # each delivery retries until its deadline, then hands the chunk back
    stack.put("geo/data.tsv", tsv_bytes(ROWS))
    stack.drain(dead_letters=True)
    # Then the load is FAILED with the reason, the chunk is in the dead-letter queue, the live version answers
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    reason = record["load"]["problems"][0]["reason"]
    assert "not written before the invocation's deadline" in reason
    assert "after 3 deliveries" in reason
    assert queue_depth(stack.sqs, stack.queues.data.dlq_url) >= 1
    assert lookups(stack, "geo", probes) == before
    # And the abandoned version's items are deleted
    assert stored_items(stack.ddb, stack.table, "geo", 2) == {}


def _assert_exact(stack: Stack, dataset: str, version: int, rows: list[list[str]]) -> None:
    """Every item of the version is stored, with every attribute, and nothing else."""
    assert stored_items(stack.ddb, stack.table, dataset, version) == expected_items(rows, dataset, version)


class SlowFirstCalls(FaultyClient):
    """Writes that take ``delay`` seconds each for the first ``slow`` calls: an invocation's deadline passes."""

    def __init__(self, client: Any, *, slow: int, delay: float) -> None:
        super().__init__(client)
        self.slow, self.delay = slow, delay

    def batch_write_item(self, RequestItems: dict[str, list[Any]], **kwargs: Any) -> Any:  # noqa: N803
        with self.lock:
            self.calls += 1
            late = self.calls <= self.slow
        if late:
            time.sleep(self.delay)
        return self._client.batch_write_item(RequestItems=RequestItems, **kwargs)


def test_a_chunk_stopped_at_its_deadline_is_handed_back_and_completes(stack: Stack) -> None:
    stack.loader.bulk.client = SlowFirstCalls(stack.loader.bulk.client, slow=12, delay=0.5)  # type: ignore[assignment]
    stack.data.timeout = 2.0  # with a 1 s margin, each delivery may write for 1 s
    handed_back: list[tuple[str, float]] = []
    queues, retry_in = stack.loader.queues, stack.loader.queues.retry_in

    def recorded(source: str, receipt: str, seconds: float) -> None:
        handed_back.append((source, seconds))
        retry_in(source, receipt, seconds)

    queues.retry_in = recorded  # type: ignore[method-assign,assignment]
    stack.put("geo/data.tsv", tsv_bytes(ROWS))
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("READY", 1)
    assert handed_back  # the deadline passed mid-chunk at least once, and the chunk went back to the data queue
    assert {source for source, _ in handed_back} == {stack.queues.data.arn}
    _assert_exact(stack, "geo", 1, ROWS)


@pytest.mark.parametrize("crash", ["before the switch", "after the switch"])
def test_a_worker_killed_between_writing_and_switching_finishes_on_redelivery(stack: Stack, crash: str) -> None:
    # Given a live version, and a worker that dies once while finalizing the next
    stack.put("geo/data.tsv", tsv_bytes(ROWS[:1000]))
    stack.drain()
    store = stack.loader.tables.datasets
    target = store.switch_live if crash == "before the switch" else store.end_load
    died: list[bool] = []

    def dies_once(*args: Any, **kwargs: Any) -> Any:
        finishing = crash == "before the switch" or args[2] == "READY"  # end_load(name, build, status, ...)
        if finishing and not died:
            died.append(True)
            raise Killed("killed while finalizing")  # before the switch, or live but its status not yet READY
        return target(*args, **kwargs)

    name = "switch_live" if crash == "before the switch" else "end_load"
    setattr(store, name, dies_once)
    stack.put("geo/data.tsv", tsv_bytes(ROWS))
    stack.drain()
    # Then the new version is live, complete, and the load finished on its own
    assert died == [True]
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("READY", 2)
    _assert_exact(stack, "geo", 2, ROWS)
    _assert_exact(stack, "geo", 1, ROWS[:1000])  # the previous version, kept for rollback


@pytest.mark.parametrize("stack", [{"SETTLE_SECONDS": "1"}], indirect=True)  # build 2 planned after build 1 writes
def test_two_loads_of_one_dataset_at_once_converge_on_the_newest(stack: Stack) -> None:
    # Given build 1 planned, its chunks waiting
    first, second = ROWS[:2000], ROWS[2000:4000]
    stack.put("geo/a.tsv", tsv_bytes(first))
    stack.drain_until(lambda: _phase(stack) == "writing")
    # When another object arrives and build 2 is planned while build 1's chunks are held back
    handler, held = stack.data.handler, set()

    def hold_build_one(ev: dict[str, Any], context: Any) -> Any:
        for record in ev["Records"]:
            body = json.loads(record["body"])
            if body.get("kind") == "chunk" and body["build"] == 1 and record["messageId"] not in held:
                held.add(record["messageId"])
                raise RuntimeError("not yet: build 2 first")  # left on the queue, delivered again later
        return handler(ev, context)

    stack.data.handler = hold_build_one
    stack.put("geo/b.tsv", tsv_bytes(second))
    stack.drain_until(lambda: stack.dataset("geo")["load"]["version"] == 2 and _phase(stack) == "writing")
    stack.data.handler = handler
    stack.drain()
    # Then the newest build, from both objects, is live and complete; build 1 is either kept or deleted whole
    assert held
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("READY", 2)
    assert [o["key"] for o in record["objects"]] == ["geo/a.tsv", "geo/b.tsv"]
    _assert_exact(stack, "geo", 2, first + second)
    built_one = stored_items(stack.ddb, stack.table, "geo", 1)
    assert built_one in ({}, expected_items(first, "geo", 1))


def _phase(stack: Stack) -> str | None:
    status, body = stack.get("/datasets/geo")
    return body["load"]["phase"] if status == 200 else None


def test_the_sweep_collects_a_version_whose_deletion_was_lost(stack: Stack) -> None:
    # Given three versions, where the deletion of the first was never scheduled (a crash at the wrong moment)
    for count in (1000, 1500):
        stack.put("geo/data.tsv", tsv_bytes(ROWS[:count]))
        stack.drain()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Deletions, "schedule", lambda *_: None)
        stack.put("geo/data.tsv", tsv_bytes(ROWS[:2000]))
        stack.drain()
    assert len(stored_items(stack.ddb, stack.table, "geo", 1)) == 1000  # left behind
    # When the sweep runs
    stack.loader.handler({"source": "aws.events", "detail-type": "Scheduled Event"}, LambdaContext())
    stack.drain()
    # Then the orphan is gone, and the live and previous versions are whole
    assert stored_items(stack.ddb, stack.table, "geo", 1) == {}
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("READY", 3)
    _assert_exact(stack, "geo", 3, ROWS[:2000])
    _assert_exact(stack, "geo", 2, ROWS[:1500])
