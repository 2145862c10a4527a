"""``make bench`` section 9 measures a load's writes/s over the seconds the emulated table took its writes
(``bench.capacity_log.writing_seconds``), not over its reading and going live."""

from __future__ import annotations

import json
from pathlib import Path

from bench.capacity_log import worst_range_throttling, writing_seconds


def _line(table: str, second: int, write: float) -> str:
    return json.dumps({"table": table, "second": second, "partitions": 4, "write": write, "write_throttled": 0.0})


def test_the_window_runs_from_the_first_to_the_last_busy_second_after_the_put(tmp_path: Path) -> None:
    log = tmp_path / "capacity.jsonl"
    lines = [
        _line("ranges", 100, 300.0),  # the sample, loaded before the put
        _line("ranges", 105, 3.0),  # reading and planning: a few record updates
        _line("ranges", 107, 900.0),
        _line("other", 120, 50.0),  # another table
        _line("ranges", 108, 0.0),  # a second without writes inside the window counts
        _line("ranges", 110, 1200.0),
        _line("ranges", 111, 2.0),  # going live
    ]
    log.write_text("\n".join(lines) + "\n")
    assert writing_seconds(log, "ranges", since=104.5) == 4.0  # seconds 107 to 110
    assert writing_seconds(log, "ranges", since=200.0) == 0.0
    assert writing_seconds(tmp_path / "missing.jsonl", "ranges", since=0.0) == 0.0


def test_the_worst_key_range_is_the_one_with_the_largest_share_of_its_units_refused(tmp_path: Path) -> None:
    log = tmp_path / "capacity.jsonl"

    def second(number: int, *parts: tuple[str, int, float, float]) -> str:
        by = [{"index": i, "number": n, "write": w, "write_throttled": t} for i, n, w, t in parts]
        return json.dumps({"table": "ranges", "second": number, "by_partition": by})

    lines = [
        second(99, ("", 0, 0.0, 500.0)),  # before the put
        second(100, ("", 0, 900.0, 100.0), ("", 1, 950.0, 0.0), ("gsi", 0, 0.0, 900.0)),  # an index's: not counted
        second(101, ("", 0, 900.0, 0.0), ("", 1, 800.0, 50.0)),
    ]
    log.write_text("\n".join(lines) + "\n")
    assert worst_range_throttling(log, "ranges", since=100.0) == 100.0 / 1900.0
    assert worst_range_throttling(tmp_path / "missing.jsonl", "ranges", since=0.0) == 0.0
