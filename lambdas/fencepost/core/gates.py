"""The gates a build passes before anything of it is written: a folder's guard against a feed that shrinks, is cut
short, or changes far more than it ever does.

Each gate is a folder setting (``_settings.json``) with a default:

- ``min_ranges`` (default 1): the objects must hold at least this many ranges.
- ``max_removed_percent`` (default 25): measured against what the live version holds, per family: the share of its
  pieces any of whose addresses no longer answer the same (gone, or another answer), and the share of the addresses
  it answers that no longer answer the same. A truncated file loses a share of what was served whatever the feed's
  size: a blocklist cut to a tenth loses 90% of its pieces, though it covers a tiny share of the address space.
  Up to ``removed_allowance`` pieces of a family (default 50) may be lost whatever their share, so an edit to a
  small list is never refused.
- ``max_change_percent`` (default none): the share of each family's whole address space whose answer changed,
  growth included.

A gate that is ``None`` (``null`` in the settings) does not apply. Every decision is exact (fractions, no
rounding). Growth alone never trips ``max_removed_percent``: what is added is not lost.

A folder fed by its source (``_source.json``: nobody looks at a release before it is built) gets stricter defaults,
``UNATTENDED``, for each gate its settings leave unset (``Gates.unattended``); what they chose, and why, is in
``docs/datasets.md`` (measured on publishers' consecutive releases).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Final

from fencepost.core.addresses import FAMILIES
from fencepost.core.diffs import Diff

MAX_REMOVED_PERCENT: Final = 25.0
REMOVED_ALLOWANCE: Final = 50
MIN_RANGES: Final = 1
NAMES: Final = ("min_ranges", "max_removed_percent", "removed_allowance", "max_change_percent")
UNATTENDED: Final[dict[str, Any]] = {"max_removed_percent": 10.0, "max_change_percent": 5.0}


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a gate stopped a build: the gate's setting, and a message with the figure measured and the limit."""

    gate: str
    reason: str


@dataclass(frozen=True, slots=True)
class Gates:
    min_ranges: int = MIN_RANGES
    max_removed_percent: float | None = MAX_REMOVED_PERCENT
    removed_allowance: int = REMOVED_ALLOWANCE
    max_change_percent: float | None = None
    explicit: frozenset[str] = field(default=frozenset(), compare=False)  # the gates the settings set

    def unattended(self) -> Gates:
        """These gates for a folder its source feeds: ``UNATTENDED`` for every gate the settings left unset."""
        return replace(self, **{name: value for name, value in UNATTENDED.items() if name not in self.explicit})

    @classmethod
    def parse(cls, document: Mapping[str, Any]) -> dict[str, Any]:
        """The gate settings a settings document gives, checked (ValueError); absent ones are left out, so the
        defaults apply, and ``null`` turns a percent gate off."""
        found: dict[str, Any] = {}
        for name in ("max_removed_percent", "max_change_percent"):
            if name in document:
                found[name] = _percent(document[name], name)
        for name in ("min_ranges", "removed_allowance"):
            if name in document:
                found[name] = _count(document[name], name)
        return found

    def refusal(self, ranges: int, diff: Diff | None, baseline: int | None) -> Refusal | None:
        """The first gate that stops a build of ``ranges`` ranges whose comparison with the live version
        ``baseline`` is ``diff`` (None: nothing to compare with; only ``min_ranges`` applies). None: it may go on.
        """
        if ranges < self.min_ranges:
            return Refusal(
                "min_ranges", f"the objects hold {ranges:,} ranges; min_ranges asks for at least {self.min_ranges:,}"
            )
        if diff is None:
            return None
        return self._removed(diff, baseline) or self._changed(diff, baseline)

    def _removed(self, diff: Diff, baseline: int | None) -> Refusal | None:
        if self.max_removed_percent is None:
            return None
        limit = Fraction(self.max_removed_percent) / 100
        for family in FAMILIES:
            loss = diff.loss[family]
            if loss.pieces_lost <= self.removed_allowance:
                continue
            held = f"of the IPv{family} pieces version {baseline} serves"
            allows = (
                f"max_removed_percent allows {self.max_removed_percent:g}% "
                f"(and any {self.removed_allowance:,} pieces, removed_allowance)"
            )
            if loss.pieces_fraction() > limit:
                return Refusal(
                    "max_removed_percent",
                    f"{_percent_text(loss.pieces_fraction())}% {held} ({loss.pieces_lost:,} of {loss.pieces:,}) are "
                    f"gone or answer otherwise; {allows}",
                )
            if loss.addresses_fraction() > limit:
                return Refusal(
                    "max_removed_percent",
                    f"{_percent_text(loss.addresses_fraction())}% of the IPv{family} addresses version {baseline} "
                    f"answers ({loss.addresses_lost:,} of {loss.addresses:,}) are gone or answer otherwise; {allows}",
                )
        return None

    def _changed(self, diff: Diff, baseline: int | None) -> Refusal | None:
        limit = self.max_change_percent
        if limit is None or not diff.exceeds(limit):
            return None
        return Refusal(
            "max_change_percent",
            f"the answers changed for {diff.percent_v4:g}% of the IPv4 and {diff.percent_v6:g}% of the IPv6 address "
            f"space since version {baseline}; max_change_percent allows {limit:g}%",
        )


def _percent_text(share: Fraction) -> str:
    # Four significant digits; the counts beside it are exact
    return f"{float(share * 100):.4g}"


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
