"""The gates a build passes before anything of it is written: a folder's guard against a feed that shrinks, is cut
short, grows or creeps far past what it ever does, or answers for space no public feed should.

Each gate is a folder setting (``_settings.json``) with a default:

- ``min_ranges`` (default 1): the objects must hold at least this many ranges.
- ``reserved_space`` (default ``"allow"``): what a build that answers for reserved space meets: ``"refuse"``,
  ``"flag"`` (it goes live, with a warning naming the network) or ``"allow"``. Reserved space is what the IANA
  special-purpose registries mark not globally reachable (``core.space.reserved``: 0/8, 10/8, 127/8, RFC 1918,
  100.64/10, link-local, documentation, ``fc00::/7``, ``::1``...).
- ``max_removed_percent`` (default 25): measured against what the live version holds, per family: the share of its
  pieces any of whose addresses no longer answer the same (gone, or another answer), and the share of the addresses
  it answers that no longer answer the same. A truncated file loses a share of what was served whatever the feed's
  size: a blocklist cut to a tenth loses 90% of its pieces, though it covers a tiny share of the address space.
  Up to ``removed_allowance`` pieces of a family (default 50) may be lost whatever their share, so an edit to a
  small list is never refused.
- ``max_added_percent`` (default none): growth, measured against what the live version covers, per family: the
  addresses that answered NOT_FOUND and now answer, as a share of the addresses the live version answers. Up to
  ``added_allowance`` of a family (default any /16 of IPv4 and any /32 of IPv6, as prefix lengths) may be added
  whatever their share, so a small list may grow.
- ``max_change_percent`` (default none): the share of each family's whole address space whose answer changed,
  growth included.
- ``max_window_change_percent`` (default none): the same share, summed over the builds that went live in the last
  ``change_window_hours`` (default 24) and this one: a budget that twenty small steps cannot get round
  (``core.versions.history.changed_since``).

A gate that is ``None`` (``null`` in the settings) does not apply. Every decision on a build's own figures is exact
(fractions, no rounding). Growth alone never trips ``max_removed_percent``: what is added is not lost.

A folder fed by its source (``_source.json``: nobody looks at a release before it is built) gets stricter defaults,
``UNATTENDED``, for each gate its settings leave unset (``Gates.unattended``); what they chose, and why, is in
``docs/datasets.md`` (measured on publishers' consecutive releases).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Final

from fencepost.core.folders.gate_settings import (
    ADDED_ALLOWANCE,
    CHANGE_WINDOW_HOURS,
    MAX_REMOVED_PERCENT,
    MIN_RANGES,
    REMOVED_ALLOWANCE,
    parse_gates,
)
from fencepost.core.space.addresses import BITS, FAMILIES, V4
from fencepost.core.space.reserved import Reserved
from fencepost.core.versions.diffs import Diff

UNATTENDED: Final[dict[str, Any]] = {
    "max_removed_percent": 10.0,
    "max_change_percent": 5.0,
    "max_added_percent": 10.0,
    "max_window_change_percent": 5.0,
    "reserved_space": "refuse",
}


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
    max_added_percent: float | None = None
    added_allowance: tuple[int, int] = ADDED_ALLOWANCE
    max_window_change_percent: float | None = None
    change_window_hours: float = CHANGE_WINDOW_HOURS
    reserved_space: str = "allow"
    explicit: frozenset[str] = field(default=frozenset(), compare=False)  # the gates the settings set

    def unattended(self) -> Gates:
        """These gates for a folder its source feeds: ``UNATTENDED`` for every gate the settings left unset."""
        return replace(self, **{name: value for name, value in UNATTENDED.items() if name not in self.explicit})

    @classmethod
    def parse(cls, document: Mapping[str, Any]) -> dict[str, Any]:
        """The gate settings a settings document gives, checked (ValueError); absent ones are left out, so the
        defaults apply, and ``null`` turns a gate off (``core.folders.gate_settings``)."""
        return parse_gates(document)

    def refusal(
        self,
        ranges: int,
        diff: Diff | None,
        baseline: int | None,
        *,
        earlier: tuple[float, float] = (0.0, 0.0),
        reserved: Reserved | None = None,
    ) -> Refusal | None:
        """The first gate that stops a build of ``ranges`` ranges whose comparison with the live version
        ``baseline`` is ``diff`` (None: a first version; then only ``min_ranges`` and ``reserved_space`` apply), in
        this order: ``min_ranges``, the gates on the comparison, ``reserved_space``.
        ``earlier``: the percent of each family's space the builds that went live in the window changed
        (``core.versions.history.changed_since``); ``reserved``: the first reserved network the build answers for. None:
        it may go on."""
        if ranges < self.min_ranges:
            return Refusal(
                "min_ranges", f"the objects hold {ranges:,} ranges; min_ranges asks for at least {self.min_ranges:,}"
            )
        measured = None
        if diff is not None:
            measured = (
                self._removed(diff, baseline)
                or self._added(diff, baseline)
                or self._changed(diff, baseline)
                or self._window(diff, earlier)
            )
        if measured is not None or reserved is None or self.reserved_space != "refuse":
            return measured
        return Refusal(
            "reserved_space",
            f"the objects answer for {reserved.text()}, reserved space the IANA registry marks not globally "
            'reachable (the first found); reserved_space "refuse" refuses any',
        )

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

    def _added(self, diff: Diff, baseline: int | None) -> Refusal | None:
        if self.max_added_percent is None:
            return None
        limit = Fraction(self.max_added_percent) / 100
        for family, prefix in zip(FAMILIES, self.added_allowance, strict=True):
            gained, growth = diff.gained[family], diff.growth(family)
            if gained <= 1 << (BITS[family] - prefix) or (growth is not None and growth <= limit):
                continue
            allows = f"max_added_percent allows {self.max_added_percent:g}% (and any /{prefix}, added_allowance)"
            added = f"the objects answer {_amount(family, gained)} IPv{family} addresses version {baseline} does not"
            if growth is None:
                return Refusal("max_added_percent", f"{added}, and it answers none of the family's; {allows}")
            covered = _amount(family, diff.loss[family].addresses)
            more = f"{_percent_text(growth)}% more than" if growth <= 10 else f"{float(growth):,.0f} times"
            return Refusal("max_added_percent", f"{added}: {more} the {covered} it answers; {allows}")
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

    def _window(self, diff: Diff, earlier: tuple[float, float]) -> Refusal | None:
        limit, hours = self.max_window_change_percent, self.change_window_hours
        if limit is None:
            return None
        for family, before in zip(FAMILIES, earlier, strict=True):
            own = float(diff.fraction(family) * 100)
            if before + own > limit:
                return Refusal(
                    "max_window_change_percent",
                    f"the versions that went live in the last {hours:g} hours changed the answers for {before:.4g}% "
                    f"of the IPv{family} address space and this build for {own:.4g}%: {before + own:.4g}% in all; "
                    f"max_window_change_percent allows {limit:g}% in change_window_hours ({hours:g})",
                )
        return None


def _percent_text(share: Fraction) -> str:
    # Four significant digits; the counts beside it are exact
    return f"{float(share * 100):.4g}"


def _amount(family: int, count: int) -> str:
    """A count of addresses as a reason shows it: exact for IPv4; for IPv6 (up to 39 digits) a power of two, or four
    significant digits."""
    if family == V4:
        return f"{count:,}"
    return f"2^{count.bit_length() - 1}" if count and count & (count - 1) == 0 else f"{count:.4g}"
