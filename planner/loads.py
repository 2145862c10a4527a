"""What a load will do on each table mode: this project's loader, as deployed, writing the build on the capacity
model in virtual time; its cost; the cheapest mode that meets a target time; the deploy arguments it implies."""

from __future__ import annotations

import math
from collections import Counter, defaultdict, deque
from dataclasses import dataclass
from typing import Final

from capacity import prices
from capacity.loaders import Invocations
from capacity.modes import PREWARM_READ_UNITS, WARM_READ_UNITS, WARM_WRITE_UNITS, Mode, parse_mode
from capacity.partitions import Keyspace
from capacity.placement import key_hash
from capacity.simulation import Simulation, Write
from capacity.table import TableModel
from planner.local_build import Build

FINALIZE_SECONDS: Final = 2.0  # the build's last chunk counted, its version switched live (a few table writes)
CANDIDATES: Final = (
    "on-demand-new",
    f"warm={WARM_WRITE_UNITS}",
    "provisioned=10000,then-on-demand",
    "provisioned=5000,then-on-demand",
    "provisioned=20000,then-on-demand",
    "provisioned=40000,then-on-demand",
    "warm=20000",
    "warm=40000",
)
SHOWN: Final = CANDIDATES[:3]  # every plan shows these; the others only when one is the cheapest in time


@dataclass(frozen=True, slots=True)
class ModePlan:
    mode: str
    seconds: float  # to READY: the build, the writes, going live
    write_seconds: float
    writes_per_second: float
    throttled_share: float  # of write calls, any item refused
    partitions: int
    partitions_touched: int
    hottest_partition_share: float  # of the items, on the busiest partition
    cost_usd: float
    cost_note: str


def plan_mode(build: Build, mode_name: str, *, workers: int, threads: int, scale: float = 1.0) -> ModePlan:
    mode = parse_mode(mode_name)
    table = TableModel(mode, scale=scale)
    sim = Simulation(table)
    loader = Invocations(deque(build.chunks), workers=workers, threads=threads)
    loader.start(sim)
    sim.run()
    touched = Counter(table.keys.index_of(table.keys.find(item.where)) for item in build.items)
    write_seconds = loader.log.finished
    seconds = build.seconds + write_seconds + FINALIZE_SECONDS
    cost, note = load_cost(mode, build.items, write_seconds)
    return ModePlan(
        mode_name,
        seconds,
        write_seconds,
        len(build.items) / write_seconds if write_seconds else 0.0,
        loader.log.throttled_share,
        len(table.keys),
        len(touched),
        max(touched.values()) / len(build.items) if touched else 0.0,
        cost,
        note,
    )


def load_cost(mode: Mode, items: list[Write], write_seconds: float) -> tuple[float, str]:
    """The load's DynamoDB cost: its write request units on demand; provisioned capacity by the hour."""
    units = sum(item.units for item in items)
    requests = units * prices.DYNAMODB_WRITE_PER_MILLION_WRU / 1e6
    hourly = mode.write_units * prices.DYNAMODB_WCU_HOUR + mode.read_units * prices.DYNAMODB_RCU_HOUR
    if mode.provisioned:  # billed by the hour while provisioned, requests included
        hours = max(1, math.ceil(write_seconds / 3600))
        return hours * hourly, f"{hours} h of {mode.write_units:,.0f} WCU and {mode.read_units:,.0f} RCU"
    if mode.switched:  # provisioned for at least an hour before the switch, then requests on demand
        return hourly + requests, f"1 h provisioned ({mode.write_units:,.0f} WCU) then {units:,.0f} write units"
    if mode.name.startswith("warm"):
        return requests, f"{units:,.0f} write units; raising warm throughput is charged once, apart (not counted)"
    return requests, f"{units:,.0f} write units on demand"


def cheapest_within(plans: list[ModePlan], seconds: float) -> ModePlan | None:
    """The cheapest plan that is READY within ``seconds``; at equal cost, one with no charge left out (a warm
    throughput raise is charged apart) before the faster."""
    meeting = [plan for plan in plans if plan.seconds <= seconds]
    return min(meeting, key=lambda p: (round(p.cost_usd, 2), p.mode.startswith("warm"), p.seconds)) if meeting else None


def deploy_arguments(mode_name: str) -> str:
    """The ``make deploy`` that gives a table in this mode (the stack's context keys, ``docs/deploy.md``)."""
    mode = parse_mode(mode_name)
    if mode.name == "on-demand-new":
        return "make deploy   # the default: an on-demand table"
    if mode.switched:
        reads = f" -c prewarmReadUnits={mode.read_units:.0f}" if mode.read_units != PREWARM_READ_UNITS else ""
        return (
            f'make deploy CDK_ARGS="-c capacity=prewarm -c prewarmWriteUnits={mode.write_units:.0f}{reads}", '
            "then make deploy (back to on-demand, before the load)"
        )
    if mode.provisioned:
        return f'make deploy CDK_ARGS="-c capacity=prewarm -c prewarmWriteUnits={mode.write_units:.0f}"'
    reads = f" -c warmReadUnits={mode.read_units:.0f}" if mode.read_units != WARM_READ_UNITS else ""
    return f'make deploy CDK_ARGS="-c capacity=warm -c warmWriteUnits={mode.write_units:.0f}{reads}"'


def hottest_share_spread(build: Build, mode_name: str, versions: int = 20) -> tuple[float, float]:
    """The busiest partition's share of the items for versions 1..``versions`` of the same data: which partition
    key values share a partition changes with every version (the key holds the version; the hash is modelled)."""
    units: dict[str, float] = defaultdict(float)
    for item in build.items:
        units[item.key] += item.units
    total = sum(units.values())
    shares = []
    for version in range(1, versions + 1):
        space = Keyspace(parse_mode(mode_name).partitions)
        per: dict[int, float] = defaultdict(float)
        for key, count in units.items():
            renamed = key.replace(f"{build.dataset}#1#", f"{build.dataset}#{version}#", 1)
            per[space.index_of(space.find((key_hash(f"S:{renamed}".encode()), b"")))] += count
        shares.append(max(per.values()) / total)
    return min(shares), max(shares)
