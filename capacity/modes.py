"""How a table is created, as ``CAPACITY`` names it, and the partitions it starts with.

- ``off``: no model at all (DynamoDB Local as it is: unlimited, never throttles);
- ``on-demand-new``: a new on-demand table, four partitions ([study-1]: 4,000 write / 12,000 read units);
- ``warm=<WRU>[/<RRU>]``: on demand, created with that warm throughput: partitions for it at once;
- ``provisioned=<WCU>[/<RCU>]``: provisioned at that capacity (read units 12,000 unless given, as the stack's
  pre-warm): partitions by the classic formula, throughput capped by the capacity plus 300 s of burst;
- ``provisioned=<WCU>[/<RCU>],then-on-demand``: the pre-warm: created provisioned, switched to on-demand before the
  load; the partitions stay ([docs-splits]).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Final

from capacity.facts import (
    ON_DEMAND_NEW_READ_UNITS,
    ON_DEMAND_NEW_WRITE_UNITS,
    PARTITION_READ_UNITS,
    PARTITION_WRITE_UNITS,
)

# The stack's capacity modes (``-c capacity=...``), declared here for the stack and the planner alike.
# Prewarm: 10,000 WCU gives the table at least 10 partitions (one partition takes 1,000 WCU / 3,000 RCU), enough for
# the ~6,000 writes/s measured by the design's study. Reads default to 12,000 RCU, the read rate a new on-demand
# table serves, so switching a live table to PROVISIONED for a load never gives lookups less read capacity than
# on-demand's starting point (3,000 RCU would throttle lookups above ~6,000/s during the load window). The extra
# 9,000 RCU cost $1.17 per hour while provisioned; the load window is minutes.
PREWARM_WRITE_UNITS: Final = 10_000
PREWARM_READ_UNITS: Final = 12_000
# Warm mode: the same write rate as prewarm, reads at the on-demand baseline (raising reads is charged and lookups
# are read one item per address).
WARM_WRITE_UNITS: Final = 10_000
WARM_READ_UNITS: Final = int(ON_DEMAND_NEW_READ_UNITS)

_MODE: Final = re.compile(r"(warm|provisioned)=(\d+)(?:/(\d+))?(,then-on-demand)?")
MAX_UNITS: Final = 1_000_000


class ModeError(ValueError):
    """A capacity mode that cannot be read; the message says what can."""


@dataclass(frozen=True, slots=True)
class Mode:
    name: str
    write_units: float = ON_DEMAND_NEW_WRITE_UNITS  # provisioned capacity, or what the partitions start with
    read_units: float = ON_DEMAND_NEW_READ_UNITS
    provisioned: bool = False  # billed and capped as provisioned while the load runs
    switched: bool = False  # created provisioned, then switched to on-demand: the pre-warm
    unlimited: bool = False  # "off"

    @property
    def partitions(self) -> int:
        """Partitions at creation: provisioned by the classic formula ([classic]); on demand, enough for its
        starting throughput (a new table: 4, [study-1])."""
        writes, reads = self.write_units / PARTITION_WRITE_UNITS, self.read_units / PARTITION_READ_UNITS
        if self.provisioned or self.switched:
            return max(1, math.ceil(writes + reads))
        return max(1, math.ceil(max(writes, reads)))


def parse_mode(text: str) -> Mode:
    name = text.strip().lower()
    if name == "off":
        return Mode("off", unlimited=True)
    if name == "on-demand-new":
        return Mode(name)
    match = _MODE.fullmatch(name)
    if match is None:
        raise ModeError(
            f"unknown capacity mode {text[:80]!r}: off, on-demand-new, warm=<write units>[/<read units>], "
            "provisioned=<write units>[/<read units>] or provisioned=<write units>[/<read units>],then-on-demand"
        )
    kind, writes, reads, then = match.groups()
    write_units, read_units = float(writes), float(reads) if reads else ON_DEMAND_NEW_READ_UNITS
    if not 1 <= write_units <= MAX_UNITS or not 1 <= read_units <= MAX_UNITS:
        raise ModeError(f"capacity units must be from 1 to {MAX_UNITS:,}: {text[:80]!r}")
    if kind == "warm":
        if then:
            raise ModeError("then-on-demand applies to a provisioned table; a warm table is on demand already")
        # Warm throughput cannot be below a new table's ([docs-on-demand]; the stack refuses it too)
        return Mode(name, max(write_units, ON_DEMAND_NEW_WRITE_UNITS), max(read_units, ON_DEMAND_NEW_READ_UNITS))
    return Mode(name, write_units, read_units, provisioned=not then, switched=bool(then))
