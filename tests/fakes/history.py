"""Dated folders' states and placing dated builds in the history, in memory, with the rules of
``fencepost.aws.dynamo.timelines.HistoryTable``: the history itself is ``FakeServing``'s (its events in the store)."""

from __future__ import annotations

from fencepost.core.folders.backfill import Dated, date_instant
from fencepost.core.storage.keys import builds_pk, dated_pk
from fencepost.core.versions.history import Timeline
from fencepost.model import BuildRecord
from tests.fakes.kernel import Faults, Store, detached, port
from tests.fakes.serving import FakeServing, being_finalized


class FakeHistory:
    def __init__(self, store: Store, faults: Faults, serving: FakeServing) -> None:
        self.store, self.faults, self.serving = store, faults, serving

    def timeline(self, dataset: str, *, consistent: bool = False) -> Timeline:
        return self.serving.timeline(dataset, consistent=consistent)

    def mark_gone(self, dataset: str, version: int, now: float) -> None:
        self.serving.mark_gone(dataset, version, now)

    @port
    def place(self, dataset: str, build: int, date: str, now: float) -> bool:
        attempt: BuildRecord | None = detached(self.store.get(builds_pk(dataset), build))
        if not being_finalized(attempt):  # PLACED_WHILE_FINALIZED
            return False
        state = self.store.get(dated_pk(dataset), round(date_instant(date)))
        if state is None or state.build != build:  # STILL_THE_FOLDERS
            return False
        assert attempt is not None
        self.serving.event(dataset, date_instant(date), build, dated=True)
        attempt.switched = now
        self.store.put(builds_pk(dataset), build, attempt)
        return True

    @port
    def dated(self, dataset: str) -> dict[str, Dated]:
        pk = dated_pk(dataset)
        states = [self.store.get(pk, sk) for sk in self.store.sort_keys(pk)]
        return {state.date: state for state in states}

    @port
    def put_dated(self, dataset: str, state: Dated) -> None:
        self.store.put(dated_pk(dataset), round(date_instant(state.date)), state)

    @port
    def forget_dated(self, dataset: str, date: str) -> None:
        self.store.delete(dated_pk(dataset), round(date_instant(date)))
