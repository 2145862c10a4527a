"""The load state machine on the in-memory fakes (``tests.fakes``), for its unit tests: three versions of one object
(``A``, ``B``, ``C``) and a small one, loading rows into a ``World`` and checking what it stored and that nothing
went astray; a load killed at one of its steps, and the steps a load takes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fencepost.core.events.kinds import VERSION_LIVE
from fencepost.model import LoadStatus
from tests.fakes import DATASET, REPLACED_WHOLE, Envelope, World, loader_settings
from tests.faults import expected_items
from tests.support import V4_FILE, read_tsv

ROWS = read_tsv(V4_FILE, 480)
A, B, C = ROWS[:150], ROWS[150:300], ROWS[300:450]  # three versions of one object: 3 chunks of 50 items each
SMALL = ROWS[450:480]  # one chunk
KEY = "geo/a.tsv"


def tsv(rows: list[list[str]]) -> str:
    return "".join("\t".join(row) + "\n" for row in rows)


def load(world: World, rows: list[list[str]], key: str = KEY) -> None:
    """Drop ``rows`` into the bucket as ``key`` and deliver until the queues are empty."""
    world.upload(key, tsv(rows))
    world.settle()


def assert_version(world: World, version: int | None, rows: list[list[str]]) -> None:
    """Every item the rows make, with every attribute, is stored for ``version``, and nothing else."""
    assert version is not None
    assert world.items(version) == expected_items(rows, DATASET, version)


def assert_no_surprises(world: World) -> None:
    assert world.queues.errors == []  # nothing raised but HandBack and Killed
    assert world.queues.dead_letters == []
    assert world.queues.pending == []


def chunk_of(build: int) -> Callable[[Envelope], bool]:
    return lambda envelope: envelope.kind == "chunk" and envelope.fields["build"] == build


@dataclass
class CrashRun:
    crash: str | None  # the step that was killed; None: the load had fewer steps
    lost: bool = False  # the load needed a new change in the folder to finish
    killed_during: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def crash_run(step: int, *, after: bool, chunk_items: int) -> CrashRun:
    """Load A, then B; kill the ``step``-th port call of loading C; deliver, sweep, clean up; check everything."""
    world = World(loader_settings(chunk_items=chunk_items), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    world.faults.arm(step, after=after)
    load(world, C)  # the killed message is delivered again after its visibility timeout
    world.clean_up()  # stalled loads are failed, versions no one serves are deleted
    run = CrashRun(world.faults.killed, killed_during=list(world.queues.crashes))
    problems = run.problems
    record = world.record()
    if record.status != LoadStatus.READY:
        # A lost load (the test below asserts there is none) must at least be failed by the sweep, the old version
        # answering (or its own, if live), and load on the next change.
        run.lost = True
        reason = record.load.problems[0].reason if record.load.problems else ""
        if record.status != LoadStatus.FAILED or "no progress" not in reason:
            problems.append(f"a lost load must be failed by the sweep: {record.status} {reason!r}")
        if run.killed_during != ["build"]:
            problems.append(f"a load was lost though the crash was in {run.killed_during or 'a sweep'}")
        if record.live not in (2, record.load.version):
            problems.append(f"version {record.live} is live after a lost load")
        load(world, C)  # a new change in the folder
        world.clean_up()
        record = world.record()
    if record.status != LoadStatus.READY or record.previous != 2 or record.live is None:
        problems.append(f"not converged: {record.status}, live {record.live}, previous {record.previous}")
        return run
    if world.items(record.live) != expected_items(C, DATASET, record.live):
        problems.append(f"live version {record.live} is not complete")
    if world.items(2) != expected_items(B, DATASET, 2):
        problems.append("the previous version is not intact")
    if world.range_versions() != {record.live, 2}:
        problems.append(f"range items of versions {world.range_versions() - {record.live, 2}} were left behind")
    if not set(world.build_records()) <= {record.live, 2}:
        problems.append(f"build records {sorted(world.build_records())} were left behind")
    if world.queues.errors or world.queues.dead_letters or world.queues.pending:
        problems.append(f"errors {world.queues.errors}, dead letters {world.queues.dead_letters}")
    announced = [e.detail["version"] for e in world.events.sent if e.kind is VERSION_LIVE]
    # Each version announced live once, by the invocation whose switch made it live: none only when that invocation
    # was killed right after its switch, before its put
    lost = run.crash is not None and run.crash.endswith("switch_live (after its effect)")
    if (
        announced[:2] != [1, 2]
        or announced.count(record.live) != (0 if lost else 1)
        or len(set(announced)) < len(announced)
    ):
        problems.append(f"versions announced live: {announced}, live {record.live}")
    return run


def steps_of_third_load(chunk_items: int, max_receives: int = 3) -> list[str]:
    world = World(loader_settings(chunk_items=chunk_items, max_receives=max_receives), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    world.faults.arm(None)
    load(world, C)
    return world.faults.trace
