"""Change events' kinds and details: one declared list, each builder's detail valid against the documented schema
(and a detail that is not, refused by it), free text bounded, and what is announced once announced once."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # (pinned in requirements/dev.txt, through schemathesis)
import pytest

from fencepost.core.events import KINDS
from fencepost.core.events import kinds as k
from fencepost.core.events.announced import to_announce
from fencepost.model import DiffSummary
from tests.support.change_events import check, schema


def _diff() -> dict[str, Any]:
    return asdict(DiffSummary(baseline=3, added=2, removed=1, changed=4, changed_percent_ipv4=0.5, gate="min_ranges"))


EXAMPLES = [
    k.version_live("geo", 4, previous=3, ranges=10, items=12, diff=_diff()),
    k.version_live("geo", 1, previous=None, ranges=10, items=12, diff=None),
    k.build_failed("geo", 5, "geo/a.csv line 3: not an address", live=4),
    k.build_failed("geo", None, "the folder cannot be read"),
    k.build_refused("geo", 6, gate="max_removed_percent", limit=25.0, reason="90% gone", live=4, diff=_diff()),
    k.build_refused("geo", 6, gate="reserved_space", limit="refuse", reason="10.0.0.0/8", live=None, diff=_diff()),
    k.rolled_back("geo", 3, left=4, held=True),
    k.source_failing("drop", outcome="FAILED", reason="404 Not Found", failures=3),
    k.dataset_stale("geo", 4, loaded_at="2026-11-29T04:00:00+00:00", age_seconds=90_000, max_age_seconds=86_400),
    k.sink_failed("drop", 4, sink="waf_ip_set", target="fencepost-drop-v4-1", error="WAFLimitsExceededException"),
]


def _delivered(event: k.Event, source: str = "fencepost") -> dict[str, Any]:
    """As a rule's target receives it."""
    return {"detail-type": event.kind.detail_type, "source": source, "detail": json.loads(json.dumps(event.detail))}


def test_the_schema_names_exactly_the_declared_kinds() -> None:
    document = schema()
    assert document["properties"]["detail-type"]["enum"] == [kind.detail_type for kind in KINDS]
    assert document["properties"]["detail"]["properties"]["kind"]["enum"] == [kind.name for kind in KINDS]
    assert sorted(document["$defs"]) == sorted(
        [kind.name for kind in KINDS] + ["diff", "text", "version"] + ["version_or_null"]
    )
    assert len({kind.detail_type for kind in KINDS}) == len(KINDS)


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda event: event.kind.name)
def test_every_builders_detail_is_what_the_schema_describes(event: k.Event) -> None:
    check(_delivered(event))
    assert event.detail["kind"] == event.kind.name


def test_the_schema_refuses_a_detail_that_is_not_its_kinds() -> None:
    live = _delivered(EXAMPLES[0])
    with pytest.raises(jsonschema.ValidationError):
        check({**live, "detail-type": "Dataset build refused"})  # a live version's detail under another kind
    with pytest.raises(jsonschema.ValidationError):
        check({**live, "detail": {**live["detail"], "version": "4"}})
    with pytest.raises(jsonschema.ValidationError):
        check({**live, "detail": {**live["detail"], "surprise": 1}})


def test_a_long_reason_is_cut_so_an_event_stays_small() -> None:
    event = k.build_failed("geo", 5, "x" * 100_000)
    assert len(event.detail["reason"]) == k.MAX_TEXT
    assert event.detail["reason"].endswith("...")
    check(_delivered(event))


def test_what_was_announced_is_announced_again_only_once_it_changed_or_came_back() -> None:
    # A dataset stale at version 4: announced once
    new, kept = to_announce({}, {"stale/geo": "4"}, seen=set())
    assert (new, kept) == (["stale/geo"], {"stale/geo": "4"})
    new, kept = to_announce(kept, {"stale/geo": "4"}, seen={"stale/geo"})
    assert (new, kept) == ([], {"stale/geo": "4"})
    # Stale again at a newer version: announced again
    new, kept = to_announce(kept, {"stale/geo": "5"}, seen={"stale/geo"})
    assert (new, kept) == (["stale/geo"], {"stale/geo": "5"})
    # Fresh (seen, not found): forgotten, so that turning stale again is announced
    new, kept = to_announce(kept, {}, seen={"stale/geo"})
    assert (new, kept) == ([], {})
    # What a look did not cover is kept as it was
    new, kept = to_announce({"failing/drop": "1"}, {"stale/geo": "5"}, seen={"stale/geo"})
    assert (new, kept) == (["stale/geo"], {"failing/drop": "1", "stale/geo": "5"})
