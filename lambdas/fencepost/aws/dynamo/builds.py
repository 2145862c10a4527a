"""Build records: one per attempt at a version, counting its chunks; the version goes live when all are written."""

from __future__ import annotations

from collections.abc import Sequence

from fencepost.aws.dynamo.client import Condition, ConditionFailed, Table
from fencepost.aws.dynamo.codec import Item, decode, encode
from fencepost.core.storage.keys import builds_pk
from fencepost.model import BuildRecord, BuildState

COUNT_ONCE = Condition(
    "a chunk is counted once, and only for a build that exists",
    "attribute_exists(PK) AND NOT contains(#done, :number)",
)
ALL_CHUNKS_SENT = Condition(
    "a build turns WRITING only from PLANNING: once abandoned, it stays so",
    "#state = :planning",
)
EXISTS = Condition(
    "a build's state is set only on a build that has a record (versions without one have nothing to track)",
    "attribute_exists(PK)",
)
NEVER_ABANDON_SWITCHED = Condition(
    "a build that went live is never abandoned (its switch marks it, in the same transaction)",
    "attribute_not_exists(#switched)",
)
DELETABLE = Condition(
    "a build is deleted only when no one writes it any more: replaced after being live, abandoned, or already "
    "being deleted",
    "#state IN (:live, :abandoned, :deleting) OR attribute_exists(#switched)",
)


def build_key(dataset: str, build: int) -> Item:
    return {"PK": {"S": builds_pk(dataset)}, "SK": {"N": str(build)}}


def _record(dataset: str, item: Item) -> BuildRecord:
    return decode(BuildRecord, item, dataset=dataset, build=int(item["SK"]["N"]))


class BuildTable:
    """The ``#b#<dataset>`` partition: build records, newest number last."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def put(self, build: BuildRecord) -> None:
        self.table.put(encode(build, PK=builds_pk(build.dataset), SK=build.build))

    def get(self, dataset: str, build: int) -> BuildRecord | None:
        item = self.table.get(build_key(dataset, build), consistent=True)
        return _record(dataset, item) if item else None

    def all(self, dataset: str) -> list[BuildRecord]:
        return [_record(dataset, item) for item in self.table.query_all(builds_pk(dataset), consistent=True)]

    def delete(self, dataset: str, build: int) -> None:
        self.table.delete(build_key(dataset, build))

    def _update(
        self, dataset: str, build: int, expression: str, values: dict[str, object], condition: Condition
    ) -> BuildRecord | None:
        try:
            item = self.table.update(
                build_key(dataset, build), expression, values, condition=condition, returns="ALL_NEW"
            )
        except ConditionFailed:
            return None
        return _record(dataset, item)

    def count_chunk(self, dataset: str, build: int, chunk: int, items: int) -> BuildRecord | None:
        """Count chunk ``chunk`` as written: the record after it, or None when it was already counted."""
        return self._update(
            dataset,
            build,
            "ADD #done :chunk, #written :items",
            {":chunk": {chunk}, ":items": items, ":number": chunk},
            COUNT_ONCE,
        )

    def start_writing(self, dataset: str, build: int, chunks: int) -> BuildRecord | None:
        """All ``chunks`` are sent: the build turns WRITING (None if it was abandoned meanwhile)."""
        values = {":writing": BuildState.WRITING, ":planning": BuildState.PLANNING, ":chunks": chunks}
        return self._update(dataset, build, "SET #state = :writing, #chunks = :chunks", values, ALL_CHUNKS_SENT)

    def set_state(self, dataset: str, build: int, state: BuildState, *, expect: Sequence[BuildState] = ()) -> bool:
        """Set the build's state, if it is one of ``expect`` (any, when empty); False when it was not."""
        values: dict[str, object] = {":state": state}
        condition = EXISTS
        if expect:
            placeholders = [f":expect{index}" for index in range(len(expect))]
            values.update(zip(placeholders, expect, strict=True))
            rule = f"a build turns {state} only from {', '.join(expect)}"
            condition = Condition(rule, f"#state IN ({', '.join(placeholders)})")
        if state == BuildState.ABANDONED:
            rule = f"{condition.rule}; {NEVER_ABANDON_SWITCHED.rule}"
            condition = Condition(rule, f"({condition.expression}) AND {NEVER_ABANDON_SWITCHED.expression}")
        return self._update(dataset, build, "SET #state = :state", values, condition) is not None

    def mark_deleting(self, dataset: str, build: int, not_before: float) -> bool:
        """The build's deletion is scheduled for ``not_before``; False when it has no record or may not be deleted."""
        values = {
            ":deleting": BuildState.DELETING,
            ":live": BuildState.LIVE,
            ":abandoned": BuildState.ABANDONED,
            ":after": not_before,
        }
        expression = "SET #state = :deleting, #delete_after = :after"
        return self._update(dataset, build, expression, values, DELETABLE) is not None
