"""The gates of a keyed build, measured on keys (``core.folders.gates`` measures ranges): ``min_ranges`` is the least
number of rows, ``max_removed_percent`` the share of the live version's keys the build no longer holds (up to
``removed_allowance`` keys may go whatever their share). A changed value is no removed key. The gates on address space
(growth, change of the space, reserved space) mean nothing for keys and do not apply."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from fencepost.core.folders.gates import Gates, Refusal


@dataclass(frozen=True, slots=True)
class KeyChanges:
    """How a keyed build's rows differ from the live version's: keys added, removed, whose values changed, kept."""

    live: int
    added: int
    removed: int
    changed: int
    unchanged: int

    @property
    def removed_fraction(self) -> Fraction:
        return Fraction(self.removed, self.live) if self.live else Fraction(0)


def key_changes(before: Mapping[str, tuple[str, ...]], after: Mapping[str, tuple[str, ...]]) -> KeyChanges:
    """Compare the live version's rows (``before``) with a build's (``after``)."""
    kept = before.keys() & after.keys()
    changed = sum(1 for key in kept if before[key] != after[key])
    return KeyChanges(len(before), len(after) - len(kept), len(before) - len(kept), changed, len(kept) - changed)


def key_refusal(gates: Gates, rows: int, changes: KeyChanges | None, baseline: int | None) -> Refusal | None:
    """The first gate that stops a keyed build of ``rows`` keys whose comparison with the live version
    ``baseline`` is ``changes`` (None: a first version, only ``min_ranges`` applies); None: it may go on."""
    if rows < gates.min_ranges:
        return Refusal(
            "min_ranges", f"the objects hold {rows:,} keys; min_ranges asks for at least {gates.min_ranges:,}"
        )
    if changes is None or gates.max_removed_percent is None or changes.removed <= gates.removed_allowance:
        return None
    if changes.removed_fraction <= Fraction(gates.max_removed_percent) / 100:
        return None
    share = f"{float(changes.removed_fraction * 100):.4g}"
    return Refusal(
        "max_removed_percent",
        f"{share}% of the keys version {baseline} holds ({changes.removed:,} of {changes.live:,}) are gone; "
        f"max_removed_percent allows {gates.max_removed_percent:g}% (and any {gates.removed_allowance:,} keys, "
        "removed_allowance)",
    )
