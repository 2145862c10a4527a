"""What the loads of ``make bench`` leave in the local stack's logs: the loader's metric lines (``metrics.log``)
and the capacity emulator's line a second per table (``capacity.jsonl``, ``local.capacity``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path


def metric_totals(path: Path) -> Counter[str]:
    totals: Counter[str] = Counter()
    if not path.exists():
        return totals
    for line in path.read_text().splitlines():
        try:
            document = json.loads(line)
        except ValueError:
            continue
        for name in ("WriteCalls", "Throttles"):
            value = document.get(name)
            totals[name] += sum(value) if isinstance(value, list) else (value or 0)
    return totals


def writing_seconds(log: Path, table: str, *, since: float) -> float:
    """The seconds from the first in which the emulated ``table`` took a tenth of the load's busiest second's writes,
    after ``since`` (the put), to the last, both counted (``local.capacity`` logs a line a second per table): the
    load's writing, without the few record updates of its reading and planning before and of going live after."""
    writes: dict[int, float] = {}
    for line in log.read_text().splitlines() if log.exists() else []:
        second = json.loads(line)
        if second["table"] == table and second["second"] >= int(since):
            writes[second["second"]] = float(second.get("write", 0))
    busiest = max(writes.values(), default=0.0)
    busy = [second for second, units in writes.items() if units > 0 and units >= busiest / 10]
    return float(max(busy) - min(busy) + 1) if busy else 0.0


def worst_range_throttling(log: Path, table: str, *, since: float) -> float:
    """The largest share of write units refused, over the seconds after ``since``, of any one partition (key range)
    of the emulated ``table``: refused over refused and accepted."""
    units: dict[int, list[float]] = {}
    for line in log.read_text().splitlines() if log.exists() else []:
        second = json.loads(line)
        if second["table"] != table or second["second"] < int(since):
            continue
        for partition in second.get("by_partition", []):
            if not partition.get("index"):
                held = units.setdefault(partition["number"], [0.0, 0.0])
                held[0] += float(partition.get("write", 0))
                held[1] += float(partition.get("write_throttled", 0))
    return max((refused / (taken + refused) for taken, refused in units.values() if taken + refused), default=0.0)
