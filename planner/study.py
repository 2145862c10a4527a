"""The design's study reproduced on the capacity model: Part 1's four loads with its own loader and key layouts, Part
2's reads of one key value, each beside the study's figure; then this project's loader on the same four tables.

The rows are the file's, in file order (the study loaded its CSV's rows as items, start address as sort key).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from capacity.loaders import Invocations, StudyLoop
from capacity.modes import parse_mode
from capacity.placement import position
from capacity.simulation import CallLog, Simulation, Write
from capacity.table import TableModel
from fencepost.core.folders.limits import Limits
from fencepost.core.formats.base import ReadOptions
from fencepost.core.formats.choice import read_ranges
from fencepost.core.formats.lines import object_lines
from fencepost.core.space.addresses import V4
from fencepost.core.versions.build import Collector, ProblemLog
from fencepost.declared import LOADER_CONCURRENCY, WRITE_THREADS
from planner.loads import FINALIZE_SECONDS
from planner.local_build import Build


@dataclass(frozen=True, slots=True)
class StudyLoad:
    name: str
    mode: str
    study_writes_per_second: float
    writes_per_second: float
    seconds: float
    throttled_share: float
    per_second: tuple[float, ...] = ()  # writes accepted each second, for the chart (left out of the JSON)


@dataclass(frozen=True, slots=True)
class StudyRead:
    name: str
    study_queries_per_second: float
    queries_per_second: float


@dataclass(frozen=True, slots=True)
class OurLoad:
    mode: str
    seconds: float  # to READY: the build (timed here), writing, going live
    write_seconds: float  # from the first chunk to the last item
    writes_per_second: float  # while writing
    throttled_share: float
    lambda_seconds: float  # loader invocations' time spent writing, summed


def study_rows(path: Path) -> list[int]:
    """The start addresses of a file's IPv4 rows, in file order."""
    collector = Collector()
    with path.open("rb") as handle:
        read_ranges(path.name, object_lines(handle, Limits()), ReadOptions(), collector, ProblemLog())
    return list(collector.families[V4].starts)


def _items(starts: Sequence[int], key: Callable[[int], str]) -> list[Write]:
    return [Write(position({"S": key(start)}, {"N": str(start)}), 1.0, key(start)) for start in starts]


LOADS = (  # name, how keys are made, whether rows are shuffled, table, the study's figure [study-1]
    ("one partition key value, file order", "one", False, "on-demand-new", 1_000.0),
    ("first octet as key, file order", "octet", False, "on-demand-new", 1_250.0),
    ("first octet as key, shuffled, new on-demand table", "octet", True, "on-demand-new", 3_600.0),
    ("first octet as key, shuffled, provisioned 10,000 WCU", "octet", True, "provisioned=10000", 6_000.0),
)


def study_loads(starts: Sequence[int], *, seed: int = 1) -> list[StudyLoad]:
    found = []
    made = {
        "one": _items(starts, lambda _: "0"),
        "octet": _items(starts, lambda start: str(start >> 24)),
    }  # each load takes its own copy (a shuffled one shuffles its copy)
    for name, keys, shuffled, mode, figure in LOADS:
        items = list(made[keys])
        if shuffled:
            random.Random(seed).shuffle(items)
        sim = Simulation(TableModel(parse_mode(mode)))
        loop = StudyLoop(items)
        sim.start(loop)
        sim.run()
        seconds = loop.log.finished
        first = sim.seconds[0].second if sim.seconds else 0
        series = [0.0] * (sim.seconds[-1].second - first + 1 if sim.seconds else 0)
        for second in sim.seconds:
            series[second.second - first] = second.write
        found.append(
            StudyLoad(name, mode, figure, len(items) / seconds, seconds, loop.log.throttled_share, tuple(series))
        )
    return found


@dataclass(slots=True)
class _Reader:
    """A query client thread: eventually consistent Queries of one key value, back to back ([study-2])."""

    log: CallLog
    rng: random.Random
    until: float
    call_seconds: float = 0.002

    def step(self, sim: Simulation) -> float | None:
        if sim.now >= self.until:
            return None
        where = position({"S": "0"}, {"N": str(self.rng.getrandbits(32))})
        refused = sim.table.read(sim.now, where, 0.5, eventual=True)
        self.log.calls += 1
        self.log.throttled += refused is not None
        return sim.now + self.call_seconds + (0.05 if refused else 0.0)


def study_reads(*, threads: int = 30, seconds: float = 30.0) -> list[StudyRead]:
    """Part 2's first test: one key value on demand, more queries offered than it serves, before any split."""
    sim = Simulation(TableModel(parse_mode("on-demand-new")))
    log, rng = CallLog(), random.Random(2)
    for _ in range(threads):
        sim.start(_Reader(log, random.Random(rng.random()), seconds))
    sim.run()
    served = sorted(second.read / 0.5 for second in sim.seconds[1:-1])
    return [StudyRead("one partition key value, on demand, eventually consistent", 9_000.0, served[len(served) // 2])]


def our_loads(build: Build, *, workers: int = LOADER_CONCURRENCY, threads: int = WRITE_THREADS) -> list[OurLoad]:
    """This project's loader, as deployed, writing ``build`` on the study's four tables."""
    found = []
    for mode in dict.fromkeys(mode for *_, mode, _ in LOADS):
        sim = Simulation(TableModel(parse_mode(mode)))
        loader = Invocations(deque(build.chunks), workers=workers, threads=threads)
        loader.start(sim)
        sim.run()
        writing = loader.log.finished
        ready = build.seconds + writing + FINALIZE_SECONDS
        found.append(
            OurLoad(mode, ready, writing, len(build.items) / writing, loader.log.throttled_share, loader.busy_seconds)
        )
    return found


def as_json(loads: Sequence[StudyLoad], reads: Sequence[StudyRead], ours: Sequence[OurLoad]) -> dict[str, Any]:
    return {
        "loads": [{k: v for k, v in asdict(load).items() if k != "per_second"} for load in loads],
        "reads": [asdict(read) for read in reads],
        "our_loader": [asdict(load) for load in ours],
    }
