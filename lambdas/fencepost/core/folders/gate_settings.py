"""The gate settings of a folder's ``_settings.json`` (``core.folders.gates``): each gate's name, default and bounds,
and the checks a settings document meets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fencepost.core.space.addresses import BITS, FAMILIES

MAX_REMOVED_PERCENT: Final = 25.0
REMOVED_ALLOWANCE: Final = 50
ADDED_ALLOWANCE: Final = (16, 32)  # prefix lengths, IPv4 and IPv6: any /16 and any /32 may be added
CHANGE_WINDOW_HOURS: Final = 24.0
MAX_WINDOW_HOURS: Final = 720.0  # 30 days of a dataset's history: one small Query
MIN_RANGES: Final = 1
RESERVED_CHOICES: Final = ("refuse", "flag", "allow")
NAMES: Final = (
    "min_ranges",
    "max_removed_percent",
    "removed_allowance",
    "max_change_percent",
    "max_added_percent",
    "added_allowance",
    "max_window_change_percent",
    "change_window_hours",
    "reserved_space",
)


def parse_gates(document: Mapping[str, Any]) -> dict[str, Any]:
    """The gate settings a settings document gives, checked (ValueError); absent ones are left out, so the defaults
    apply, and ``null`` turns a gate off."""
    found: dict[str, Any] = {}
    for name in ("max_removed_percent", "max_change_percent", "max_added_percent", "max_window_change_percent"):
        if name in document:
            found[name] = _percent(document[name], name)
    for name in ("min_ranges", "removed_allowance"):
        if name in document:
            found[name] = _count(document[name], name)
    if "added_allowance" in document:
        found["added_allowance"] = _prefixes(document["added_allowance"])
    if "change_window_hours" in document:
        found["change_window_hours"] = _hours(document["change_window_hours"])
    if "reserved_space" in document:
        found["reserved_space"] = _choice(document["reserved_space"])
    return found


def _percent(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
        raise ValueError(f"{name} must be a number from 0 to 100, or null for no limit")
    return float(value)


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a whole number, 0 or more")
    return value


def _prefixes(value: Any) -> tuple[int, int]:
    """``{"ipv4": 16, "ipv6": 32}``: a prefix length per family (either may be left out: its default stays)."""
    example = 'added_allowance must be an object of prefix lengths, e.g. {"ipv4": 16, "ipv6": 32}'
    if not isinstance(value, dict) or not set(value) <= {"ipv4", "ipv6"}:
        raise ValueError(example)
    found = []
    for family, default in zip(FAMILIES, ADDED_ALLOWANCE, strict=True):
        length = value.get(f"ipv{family}", default)
        if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= BITS[family]:
            raise ValueError(f"{example}: ipv{family} from 0 to {BITS[family]}")
        found.append(length)
    return found[0], found[1]


def _hours(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_WINDOW_HOURS:
        raise ValueError(f"change_window_hours must be a number of hours above 0, at most {MAX_WINDOW_HOURS:g}")
    return float(value)


def _choice(value: Any) -> str:
    if value is None:
        return "allow"
    if value not in RESERVED_CHOICES:
        raise ValueError(f'reserved_space must be "refuse", "flag" or "allow" (null: "allow"), not {value!r:.40}')
    return str(value)
