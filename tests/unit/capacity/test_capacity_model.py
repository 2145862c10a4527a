"""The capacity model (``capacity``) against the facts it rests on: partition limits, item rounding, a hot
key range throttling while the rest of the table does not, a split for heat after the configured time, the
pre-warm keeping its partitions, provisioned burst, a throttled GSI throttling the table's writes."""

from __future__ import annotations

import random

import pytest

from capacity import facts
from capacity.modes import ModeError, parse_mode
from capacity.placement import Position, position, read_units, sort_bytes, write_units
from capacity.table import Second, TableModel


def _keys_apart(model: TableModel, count: int) -> list[Position]:
    """``count`` partition key values, each in a partition of its own."""
    found: dict[int, Position] = {}
    n = 0
    while len(found) < count:
        where = position({"S": f"key{n}"}, {"N": "1"})
        found.setdefault(model.keys.index_of(model.keys.find(where)), where)
        n += 1
    return list(found.values())


def _offer(model: TableModel, where: Position, per_second: int, seconds: int, *, start: float = 0.0) -> int:
    """Write ``per_second`` one-unit items a second at ``where``; how many were refused."""
    refused = 0
    for second in range(seconds):
        for n in range(per_second):
            refused += model.write(start + second + n / per_second, where, 1.0) is not None
    return refused


def test_item_sizes_round_up_to_units() -> None:
    assert [write_units(size) for size in (1, 1024, 1025, 4000)] == [1.0, 1.0, 2.0, 4.0]
    assert read_units(4096, eventual=False) == 1.0
    assert read_units(4097, eventual=False) == 2.0
    assert read_units(100, eventual=True) == 0.5


def test_sort_keys_order_as_dynamodb_orders_numbers_and_strings() -> None:
    numbers = ["-100", "-1.5", "-1", "0", "0.25", "1", "2", "10", "1E+5", str(2**107)]
    assert sorted(numbers, key=lambda n: sort_bytes({"N": n})) == numbers
    assert sort_bytes({"S": "a"}) < sort_bytes({"S": "ab"}) < sort_bytes({"S": "b"})


def test_a_whole_number_s_sort_key_is_the_same_bytes_as_the_same_number_written_as_a_decimal() -> None:
    # Whole numbers (every address) take a shorter path than other numbers: it must give the same bytes
    wholes = ["0", "000", "7", "007", "10", "100", "1200", "16777216", str(2**32 - 1), str(2**128 - 1)]
    for text in wholes + [str(n) for n in random.Random(5).sample(range(2**40), 200)]:
        assert sort_bytes({"N": text}) == sort_bytes({"N": text + ".0"}), text


def test_modes_start_with_the_partitions_their_capacity_needs() -> None:
    assert len(TableModel(parse_mode("on-demand-new")).keys) == 4  # [study-1]: 4,000 / 12,000 units
    assert len(TableModel(parse_mode("warm=10000")).keys) == 10
    assert len(TableModel(parse_mode("provisioned=10000")).keys) == 14  # [classic]: 12,000 / 3,000 + 10,000 / 1,000
    assert len(TableModel(parse_mode("provisioned=10000/3000,then-on-demand")).keys) == 11
    for bad in ("fast", "warm=0", "warm=100,then-on-demand", "provisioned=2000000"):
        with pytest.raises(ModeError):
            parse_mode(bad)


def test_a_hot_key_range_throttles_while_the_rest_of_the_table_does_not() -> None:
    model = TableModel(parse_mode("on-demand-new"))
    hot, cold = _keys_apart(model, 2)
    refused_hot = refused_cold = 0
    for n in range(3000):  # one second: 3,000 writes to the hot key, 500 to another partition's
        now = n / 3000
        reason = model.write(now, hot, 1.0)
        refused_hot += reason is not None
        if n % 6 == 0:
            refused_cold += model.write(now, cold, 1.0) is not None
        if reason is not None:
            assert reason == "TableWriteKeyRangeThroughputExceeded"
    assert refused_hot == 2000  # the partition took its 1,000 units
    assert refused_cold == 0


def test_eventually_consistent_reads_of_one_partition_reach_the_study_s_4500_units() -> None:
    model = TableModel(parse_mode("on-demand-new"))
    where = position({"S": "0"}, {"N": "5"})
    served = sum(model.read(n / 12_000, where, 0.5, eventual=True) is None for n in range(12_000))
    assert served == 9_000  # [study-2]: 9,000 eventually consistent queries a second
    strong = TableModel(parse_mode("on-demand-new"))
    assert sum(strong.read(n / 4000, where, 1.0, eventual=False) is None for n in range(4000)) == 3000


def test_a_split_for_heat_raises_the_hot_key_s_rate_after_the_configured_time() -> None:
    # Given one partition key value read (sort keys spread over its range) far beyond one partition
    seconds: list[Second] = []
    model = TableModel(parse_mode("on-demand-new"), heat_split_seconds=60, on_second=seconds.append)
    served = []
    for second in range(130):
        ok = 0
        for n in range(12_000):
            where = position({"S": "hot"}, {"N": str((n * 7919) % 100_000)})
            ok += model.read(second + n / 12_000, where, 0.5, eventual=True) is None
        served.append(ok)
    # Then it serves one partition's worth until the split, twice that after, and the table has one more partition
    assert served[:60] == [9000] * 60
    assert served[61:] == [12_000] * len(served[61:])  # two partitions: 18,000 a second, all 12,000 offered
    assert (len(model.keys), model.splits) == (5, 1)


def test_writes_to_an_ever_increasing_sort_key_are_not_split_for_heat() -> None:
    model = TableModel(parse_mode("on-demand-new"), heat_split_seconds=5)
    where = 0
    for second in range(20):
        for n in range(2000):
            where += 1
            model.write(second + n / 2000, position({"S": "log"}, {"N": str(where)}), 1.0)
    model.advance(30)
    assert (len(model.keys), model.splits) == (4, 0)


def test_provisioned_capacity_caps_the_table_and_burst_keeps_300_seconds_of_what_was_unused() -> None:
    model = TableModel(parse_mode("provisioned=100/100"))
    keys = _keys_apart(model, 1) + [position({"S": f"k{n}"}, {"N": "1"}) for n in range(50)]
    # A first second at 300 writes: 100 accepted (no burst kept yet), the rest refused as provisioned
    reasons = [model.write(n / 300, keys[n % len(keys)], 1.0) for n in range(300)]
    assert sum(r is None for r in reasons) == 100
    assert {r for r in reasons if r} == {"TableWriteProvisionedThroughputExceeded"}
    # Five idle seconds keep 500 units of burst; then a second takes 100 + 500 (its one partition could take 1,000)
    model.advance(6)
    accepted = sum(model.write(6 + n / 2000, keys[n % len(keys)], 1.0) is None for n in range(2000))
    assert accepted == 600


def test_switching_provisioned_to_on_demand_keeps_the_partitions() -> None:
    model = TableModel(parse_mode("provisioned=10000"))
    model.switch_to_on_demand(5.0)
    assert len(model.keys) == 14
    assert not model.provisioned
    # No provisioned cap any more: each of the 14 partitions takes its 1,000 units
    keys = _keys_apart(model, 14)
    accepted = sum(model.write(6 + n / 14_000, keys[n % 14], 1.0) is None for n in range(14_000))
    assert accepted == 14_000


def test_a_throttled_gsi_throttles_the_table_s_writes() -> None:
    # [gsi-study]: an index keyed on a value most items share puts every index write on one index partition
    model = TableModel(parse_mode("on-demand-new"))
    model.add_index("by-status")
    index_key = position({"S": "ACTIVE"})
    reasons = []
    for n in range(3000):
        where = position({"S": f"item{n}"}, {"N": "0"})  # the table's writes spread over its 4 partitions
        reasons.append(model.write(n / 3000, where, 1.0, indexes=[("by-status", index_key, 1.0)]))
    assert sum(r is None for r in reasons) == 1000
    assert {r for r in reasons if r} == {"IndexWriteKeyRangeThroughputExceeded"}


def test_the_per_table_quota_refuses_as_an_account_limit() -> None:
    model = TableModel(parse_mode("warm=60000"))
    keys = _keys_apart(model, 60)
    reasons = [model.write(n / 50_000, keys[n % 60], 1.0) for n in range(50_000)]
    assert sum(r is None for r in reasons) == facts.TABLE_MAX_UNITS
    assert {r for r in reasons if r} == {"TableWriteAccountLimitExceeded"}


def test_scale_multiplies_every_capacity_figure() -> None:
    model = TableModel(parse_mode("on-demand-new"), scale=0.1)
    (hot,) = _keys_apart(model, 1)
    assert _offer(model, hot, 300, 1) == 200  # a partition takes 100 units a second
