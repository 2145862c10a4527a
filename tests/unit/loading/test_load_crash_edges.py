"""A load that crashes at its edges converges (the load state machine on the fakes of ``tests.fakes``): one whose
version went live is never reported FAILED, and one that crashed between writing a version and its build record
leaves nothing behind."""

from __future__ import annotations

import pytest

from fencepost.errors import StoreUnavailable
from fencepost.model import LoadStatus
from tests.fakes import REPLACED_WHOLE, World, loader_settings
from tests.support.loads import (
    A,
    B,
    C,
    assert_version,
    load,
    steps_of_third_load,
)


@pytest.mark.parametrize("path", ["killed-then-swept", "passing-fault-on-last-delivery"])
def test_a_load_whose_version_went_live_is_never_reported_failed(path: str) -> None:
    # Given a live and a previous version, and a third load that fails right after its switch
    chunk_items, max_receives = (500, 3) if path == "killed-then-swept" else (50, 1)
    trace = steps_of_third_load(chunk_items, max_receives)
    switch = trace.index("FakeServing.switch_live") + 1
    assert trace[switch] == "FakeDatasets.end_load"  # the step after the switch (trace is 0-based, steps 1-based)
    world = World(loader_settings(chunk_items=chunk_items, max_receives=max_receives), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    if path == "killed-then-swept":
        world.faults.arm(switch, after=True)  # the invocation dies once the version is live
    else:
        world.faults.arm(switch + 1, error=StoreUnavailable)  # the next call (end_load) meets a passing fault
    # When the load runs, and the sweep runs after the stall time
    load(world, C)
    world.clean_up()
    # Then a load whose own version is live is not reported FAILED
    record = world.record()
    assert world.faults.killed is not None
    assert record.live == 3
    assert_version(world, 3, C)
    assert record.status == LoadStatus.READY


@pytest.mark.parametrize("crashed", ["FakeBuilds.put", "FakeVersions.put"])
def test_a_crash_between_writing_a_version_and_its_build_record_leaves_nothing_behind(crashed: str) -> None:
    # Given a crash just before the build record, or the version it records, of the third load is written
    step = steps_of_third_load(50).index(crashed) + 1
    world = World(loader_settings(chunk_items=50), folder=REPLACED_WHOLE)
    load(world, A)
    load(world, B)
    world.faults.arm(step)
    load(world, C)
    # When the build message comes back (the attempt died), and clean-up runs
    world.clean_up()
    # Then only the live and the previous version are stored
    record = world.record()
    assert (record.status, record.live, record.previous) == (LoadStatus.READY, 4, 2)
    assert world.range_versions() == {2, 4}
    assert world.stored_versions() == {2, 4}
