"""The loader's pacing (``fencepost.aws.dynamo.pacing``) and the writer that uses it (``fencepost.aws.dynamo.writer``),
driven in virtual time against the capacity model: the rate finds what the table takes, cuts at the level DynamoDB
names, refused keys wait while others go on, and no item is lost or written twice."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from capacity.modes import parse_mode
from capacity.placement import position
from capacity.table import TableModel
from fencepost.aws.dynamo import pacing
from fencepost.aws.dynamo.pacing import Backoff, Pacer, Work, table_level
from fencepost.aws.dynamo.writer import BulkWriter, key_of
from tests.support import ROOT


def test_a_first_refusal_far_above_what_the_table_took_cuts_to_what_it_took() -> None:
    pacer = Pacer(start=1000.0)
    for second in range(1, 4):
        pacer.accepted(float(second), 1000)  # the table takes 1,000 a second while the rate grows past it
    assert pacer.rate == pytest.approx(1000.0 * pacing.GROWTH**3)
    pacer.refused(3.5, share=0.9, whole_table=False, sent=3.5, items=3)
    assert pacer.rate == 1003.0  # one cut, to the 1,003 items taken in the last second
    # Refusals that no lower rate stops (every call refused, second after second): never below a quarter of the
    # most the table took in a second
    best = pacer.best
    for second in range(6, 30):
        pacer.refused(float(second), share=1.0, whole_table=True, sent=float(second))
    assert pacer.rate == pacing.HOLD * best


def test_the_rate_grows_until_refused_then_cuts_by_the_level_named_and_climbs_back() -> None:
    pacer = Pacer(start=100.0)
    pacer.accepted(0.5, 50)
    pacer.accepted(1.0, 100)
    assert pacer.rate == pytest.approx(100.0 * pacing.GROWTH)  # growing
    pacer.rate = 200.0
    pacer.refused(1.4, share=0.1, whole_table=False, sent=1.4, items=90)
    assert pacer.rate == 200.0 * pacing.KEY_CUT  # the table took 240 in the last second: above the cut
    # A call sent before the cut could take effect (within a second of it) cuts nothing more
    pacer.refused(1.9, share=1.0, whole_table=True, sent=1.8)
    assert pacer.rate == 200.0 * pacing.KEY_CUT
    # The whole table named: halved
    pacer.accepted(2.5, 200)
    before = pacer.rate
    pacer.refused(3.0, share=1.0, whole_table=True, sent=2.6)
    assert pacer.rate == before * pacing.TABLE_CUT
    # Well below the rate last refused it climbs fast, near it slowly
    low = pacer.rate
    pacer.accepted(4.0)
    assert pacer.rate == low * (1 + pacing.FAST_INCREASE)
    pacer.rate = 0.9 * pacer.refused_at
    near = pacer.rate
    pacer.accepted(5.0)
    assert pacer.rate == near * (1 + pacing.INCREASE)


def test_reserve_spaces_calls_at_the_rate_and_never_passes_the_ceiling() -> None:
    pacer = Pacer(start=1000.0, ceiling=50.0)
    assert pacer.rate == 50.0
    waits = [pacer.reserve(25, 0.0) for _ in range(4)]
    assert waits == [0.0, 0.5, 1.0, 1.5]
    for second in range(1, 10):
        pacer.accepted(float(second))
    assert pacer.rate == 50.0


def test_throttling_reasons_name_the_table_or_a_key_range() -> None:
    assert table_level(["TableWriteProvisionedThroughputExceeded"])
    assert table_level(["IndexWriteAccountLimitExceeded"])
    assert not table_level(["TableWriteKeyRangeThroughputExceeded"])
    assert not table_level([])


def test_a_refused_key_waits_longer_each_time_and_is_forgiven_once_accepted() -> None:
    backoff = Backoff(random.Random(1))
    first, longest = pacing.KEY_BACKOFF
    backoff.refused(["a"], 10.0)
    assert 10.0 + first / 2 <= backoff.until["a"] <= 10.0 + first
    assert backoff.waiting("a", 10.0)
    assert not backoff.waiting("b", 10.0)
    backoff.refused(["a"], 20.0)
    assert 20.0 + first <= backoff.until["a"] <= 20.0 + 2 * first
    for _ in range(10):
        backoff.refused(["a"], 30.0)
    assert backoff.waits["a"] == longest
    backoff.accepted(["a"])
    assert not backoff.waiting("a", 20.0)


@settings(max_examples=60, deadline=None)
@given(
    keys=st.lists(st.sampled_from("abcdef"), min_size=1, max_size=120),
    refusals=st.lists(st.booleans(), min_size=1, max_size=40),
)
def test_work_hands_out_every_request_exactly_once_whatever_is_refused(keys: list[str], refusals: list[bool]) -> None:
    requests = [(key, number) for number, key in enumerate(keys)]
    work: Work[tuple[str, int]] = Work(requests, lambda request: request[0])
    backoff = Backoff(random.Random(3))
    written: Counter[tuple[str, int]] = Counter()
    now, turn = 0.0, 0
    while True:
        batch, wait = work.take(25, now)
        if not batch:
            if wait is None:
                break
            now += max(wait, 0.01)
            continue
        refused = batch[: len(batch) // 2] if refusals[turn % len(refusals)] else []
        turn += 1
        written.update(request for request in batch if request not in refused)
        if refused:
            backoff.refused([key for key, _ in refused], now)
            work.defer(refused, backoff, now)
        backoff.accepted(key for key, _ in batch if (key, _) not in refused)
        work.finished(len(batch))
        now += 0.01
    assert written == Counter(requests)


class _ModelClient:
    """A DynamoDB client whose BatchWriteItem is answered by the capacity model, in the writer's virtual time."""

    def __init__(self, model: TableModel, clock: list[float]) -> None:
        self.model, self.clock = model, clock
        self.calls = self.refused_calls = 0
        self.written: Counter[str] = Counter()

    def batch_write_item(self, RequestItems: dict[str, list[Any]]) -> dict[str, Any]:  # noqa: N803 - boto3's name
        self.clock[0] += 0.004  # the call's round trip
        ((name, requests),) = RequestItems.items()
        left = []
        for request in requests:
            item = request["PutRequest"]["Item"]
            if self.model.write(self.clock[0], position(item["PK"], item["SK"]), 1.0) is None:
                self.written[f"{item['PK']['S']}/{item['SK']['N']}"] += 1
            else:
                left.append(request)
        self.calls += 1
        self.refused_calls += bool(left)
        return {"UnprocessedItems": {name: left} if left else {}}


class _Table:
    def __init__(self, client: _ModelClient) -> None:
        self.client, self.name = client, "ranges"


def test_the_writer_paces_itself_to_a_hot_partition_and_writes_every_item_once() -> None:
    # Given a new on-demand table (4 partitions, 1,000 units a second each) and 80,000 items over 40 keys
    clock = [0.0]
    model = TableModel(parse_mode("on-demand-new"))
    client = _ModelClient(model, clock)

    def sleep(seconds: float) -> None:
        clock[0] += seconds

    writer = BulkWriter(_Table(client), threads=1, clock=lambda: clock[0], sleep=sleep)  # type: ignore[arg-type]
    rng = random.Random(9)
    items = [{"PK": {"S": f"geo#1#4/{rng.randrange(40)}"}, "SK": {"N": str(n)}} for n in range(80_000)]
    # When it writes them all
    outcome = writer.put(items, deadline=float("inf"))
    # Then every item is written once, few calls met a refusal, and the busiest partition was kept near its limit
    assert outcome.unfinished == []
    assert sorted(client.written.values()) == [1] * 80_000
    assert client.refused_calls / client.calls <= 0.05
    busiest = max(
        sum(1 for item in items if model.keys.find(position(item["PK"], item["SK"])) is partition)
        for partition in model.keys.partitions
    )
    assert busiest / clock[0] >= 0.8 * 1000  # the hot partition's items went at 80% or more of its 1,000 a second
    assert key_of({"PutRequest": {"Item": items[0]}}) == items[0]["PK"]["S"]


def test_without_pacing_the_writer_retries_into_the_throttle_but_loses_nothing() -> None:
    # The writer as it was before pacing (WRITE_PACING=off), on a partition that takes 1,000 items a second
    clock = [0.0]
    model = TableModel(parse_mode("on-demand-new"))
    client = _ModelClient(model, clock)

    def sleep(seconds: float) -> None:
        clock[0] += seconds

    writer = BulkWriter(_Table(client), pacing=False, clock=lambda: clock[0], sleep=sleep)  # type: ignore[arg-type]
    items = [{"PK": {"S": "geo#1#4/1"}, "SK": {"N": str(n)}} for n in range(5000)]
    outcome = writer.put(items, deadline=float("inf"))
    assert outcome.unfinished == []
    assert sorted(client.written.values()) == [1] * 5000
    assert outcome.throttled == client.refused_calls > 10  # it sent into the throttle, and sent again


def test_a_seeded_backoff_draws_the_same_waits_in_every_process() -> None:
    # A process's string hashes are its own (PYTHONHASHSEED): the keys' waits must not follow them, or the same
    # seeded simulation (make plan) gives another answer at each run
    script = (
        "import random; from fencepost.aws.dynamo.pacing import Backoff\n"
        "b = Backoff(random.Random(3)); keys = [f'k{n % 40}' for n in range(100)]; b.refused(keys, 0.0)\n"
        "print(sorted(b.until.items()))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT / "lambdas")},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(runs) == 1
    assert "k39" in runs.pop()
