"""The gates of a keyed build measured on keys (``core.keyed.key_gates``): min_ranges as the least number of keys,
max_removed_percent on the live version's keys gone, removed_allowance, and a changed value that is no removed key."""

from __future__ import annotations

from fencepost.core.folders.gates import UNATTENDED, Gates
from fencepost.core.keyed.key_gates import KeyChanges, key_changes, key_refusal


def rows(count: int, tag: str = "") -> dict[str, tuple[str, ...]]:
    return {str(key): (f"name{key}{tag}",) for key in range(count)}


def test_changes_count_added_removed_changed_and_kept_keys() -> None:
    before = rows(10)
    after = {**{k: v for k, v in before.items() if int(k) >= 3}, "5": ("renamed",), "10": ("new",), "11": ("new",)}
    assert key_changes(before, after) == KeyChanges(live=10, added=2, removed=3, changed=1, unchanged=6)


def test_a_renamed_table_removes_nothing() -> None:
    changes = key_changes(rows(1000), rows(1000, "-b"))
    assert (changes.removed, changes.changed) == (0, 1000)
    assert key_refusal(Gates(max_removed_percent=0.0, removed_allowance=0), 1000, changes, 4) is None


def test_max_removed_percent_refuses_a_truncated_table_past_the_allowance() -> None:
    gates = Gates(**{"max_removed_percent": UNATTENDED["max_removed_percent"]})
    cut = key_changes(rows(1000), rows(880))  # 120 gone: 12%
    refusal = key_refusal(gates, 880, cut, 7)
    assert refusal is not None
    assert refusal.gate == "max_removed_percent"
    assert refusal.reason.startswith("12% of the keys version 7 holds (120 of 1,000) are gone; max_removed_percent")
    assert key_refusal(gates, 910, key_changes(rows(1000), rows(910)), 7) is None  # 9%
    small = key_changes(rows(60), rows(10))  # 50 gone: 83%, within removed_allowance
    assert key_refusal(gates, 10, small, 7) is None
    assert key_refusal(Gates(max_removed_percent=None), 1, key_changes(rows(1000), rows(1)), 7) is None


def test_min_ranges_counts_keys_first_versions_included() -> None:
    refusal = key_refusal(Gates(), 0, None, None)
    assert refusal is not None
    assert (refusal.gate, refusal.reason) == ("min_ranges", "the objects hold 0 keys; min_ranges asks for at least 1")
    assert key_refusal(Gates(min_ranges=5), 5, None, None) is None
    assert key_refusal(Gates(), 1, None, None) is None
