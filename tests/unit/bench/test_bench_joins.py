"""``make bench``'s join section measures what it says: the joined lookups go through the real app and join (the
keyed table read once, during the warm-up), a warm lookup makes one Query either way, and the section reports it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from bench import joins, joins_report
from bench.joins_report import FLOOR, JOINED, PLAIN, Joins, Timing
from bench.reverse import CountingBucket
from fencepost.core.space.addresses import V4, format_address, parse_address
from fencepost.core.storage.objects import keys_key
from tests.support import SMALL_FILE, read_tsv


def test_the_table_holds_every_asn_of_the_file_and_the_joined_lookups_read_it_once() -> None:
    rows = read_tsv(SMALL_FILE)
    table = joins.names_table(rows, 5_000)
    assert len(table.rows) == 5_000
    assert {row[2] for row in rows} <= set(table.rows)
    assert all(len(name) <= 28 for name, _ in table.rows.values())
    seconds, held, decoded = joins.decoded(table.encode(), repeat=1)
    assert decoded.rows == table.rows
    assert seconds > 0
    assert 0.5 < table.memory_bytes() / held < 2  # the estimate is of the measured size
    addresses = [format_address(V4, parse_address(row[0])[1]) for row in rows[:230]]
    bucket = CountingBucket({keys_key("as-names", 1): table.encode()})
    timed = joins._in_memory(rows, table, addresses, bucket)
    assert set(timed) == {PLAIN, JOINED}
    assert all(timing.calls == {"Query": 1.0} and timing.gets == 0 for timing in timed.values())
    assert bucket.gets == 1  # the table, read by the first joined lookup
    assert all(0 < timing.p50 <= timing.p99 for timing in timed.values())


def test_the_section_reports_the_ratios_and_goes_in_place_of_its_last_run(tmp_path: Path) -> None:
    local = {
        FLOOR: Timing(0.001, 0.002, {"Query": 1.0}, 0.0),
        PLAIN: Timing(0.00105, 0.002, {"Query": 1.0}, 0.0),
        JOINED: Timing(0.00107, 0.002, {"Query": 1.0}, 0.0),
    }
    memory = {PLAIN: Timing(60e-6, 1e-4, {"Query": 1.0}, 0.0), JOINED: Timing(70e-6, 1e-4, {"Query": 1.0}, 0.0)}
    text = joins_report.section(Joins(100, 1425, 120_000, 1_500_000, 0.3, 32_000_000, 35_500_000, local, memory))
    assert "**1.07x**" in text  # joined over the floor
    assert "(target 0: met)" in text
    assert "**70 us** median (target at most 100 us: met)" in text
    assert len([line for line in text.splitlines() if line.startswith("| ")]) == 6
    saved = tmp_path / "latest.md"
    saved.write_text("## Benchmarks\n\n### 5. Several\n\nfive\n\n### 6. Cache\n\nsix\n")
    joins_report.write_into(saved, text)
    joins_report.write_into(saved, text)
    heads = [line for line in saved.read_text().splitlines() if line.startswith("### ")]
    assert heads == ["### 5. Several", "### 5b. A keyed join in a lookup", "### 6. Cache"]


def test_the_in_memory_lookups_count_their_pointer_and_version_reads_as_dynamodb_would(monkeypatch: Any) -> None:
    """With the live pointers trusted for no time, each lookup reads its pointers again (a GetItem each on DynamoDB):
    the in-memory rows count them, so their GetItems and Queries are measured, not zero by construction."""
    monkeypatch.setattr(joins, "SETTINGS", dataclasses.replace(joins.SETTINGS, cache_ttl=0.0))
    rows = read_tsv(SMALL_FILE)
    table = joins.names_table(rows, 2_000)
    addresses = [format_address(V4, parse_address(row[0])[1]) for row in rows[:230]]
    timed = joins._in_memory(rows, table, addresses, CountingBucket({keys_key("as-names", 1): table.encode()}))
    assert timed[PLAIN].calls["GetItem"] == 1.0  # the dataset's live pointer
    assert timed[JOINED].calls["GetItem"] == 2.0  # and the keyed dataset's
    assert timed[PLAIN].calls["Query"] == 1.0  # the range Query; the version header from the cache
