"""The gates a feed cannot creep past (``core.folders.gates``): growth measured against what the live version covers, a
budget over a rolling window, and reserved space. Decided on the issue's creeping feed (``tests.feeds``) as a load
builds it; the loader's side (a source-fed folder's releases refused, the window read from the history) is in
``tests/unit/loading/test_creeping_feed.py`` and ``tests/integration/test_creeping_feed.py``."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import pytest

from fencepost.core.folders.gates import Gates, Refusal
from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.space.addresses import FAMILIES
from fencepost.core.space.reserved import Reserved, registry
from fencepost.core.storage.objects import FolderError
from fencepost.core.storage.piece_files import parse_piece_line, piece_lines
from fencepost.core.versions.diffs import Diff, diff
from tests.feeds import creeping_feed, networks
from tests.support import family_ranges

Rows = Sequence[Sequence[str]]
BEFORE = Gates(max_removed_percent=10.0, max_change_percent=5.0)  # the unattended gates before these three
UNATTENDED = Gates().unattended()


def _diff(old: Rows, new: Rows) -> Diff:
    def lines(rows: Rows) -> list[object]:
        ranges = family_ranges(rows)
        pieces = {family: ranges[family].pieces() for family in FAMILIES}
        return [parse_piece_line(line) for line in piece_lines(ranges, pieces)]

    return diff(iter(lines(old)), iter(lines(new)))  # type: ignore[arg-type]


def _reserved(rows: Rows) -> Reserved | None:
    ranges = family_ranges(rows)
    pieces = {family: ranges[family].pieces() for family in FAMILIES}
    return registry().first_unreachable({family: (p.starts, p.ends) for family, p in pieces.items()})


def _refused(old: Rows, new: Rows, gates: Gates, earlier: tuple[float, float] = (0.0, 0.0)) -> Refusal | None:
    return gates.refusal(len(new), _diff(old, new), baseline=1, earlier=earlier, reserved=_reserved(new))


# -- the creeping feed ---------------------------------------------------------------------------------------------


def test_each_step_of_the_creeping_feed_stays_under_the_gates_measured_against_the_whole_address_space() -> None:
    releases = creeping_feed()
    first = _diff(releases[0], releases[1])
    assert (first.percent_v4, first.percent_v6) == (4.6875, 3.125)  # 12 /8s of 256; 2000::/5 of 2**128
    assert first.loss[4].addresses_lost == 0  # nothing lost: growth only
    # The gates as they were: every step goes live, twenty of them reach all of IPv4
    for old, new in itertools.pairwise(releases):
        assert _refused(old, new, BEFORE) is None


def test_growth_is_measured_against_what_the_live_version_covers_and_the_first_step_is_refused() -> None:
    releases = creeping_feed()
    refused = _refused(releases[0], releases[1], UNATTENDED)
    assert refused == Refusal(
        "max_added_percent",
        "the objects answer 201,326,592 IPv4 addresses version 1 does not: 15,729 times the 12,800 it answers; "
        "max_added_percent allows 10% (and any /16, added_allowance)",
    )
    # IPv6 alone: 2000::/5 against ten /48s
    ipv6 = [row for row in releases[1] if ":" in row[0]]
    old_ipv6 = [row for row in releases[0] if ":" in row[0]]
    refused = _refused(old_ipv6, ipv6, replace(UNATTENDED, reserved_space="allow"))
    assert refused is not None
    assert refused.reason.startswith("the objects answer 2^123 IPv6 addresses version 1 does not: ")
    # An attended folder (no growth gate by default) lets it through, as before
    assert _refused(releases[0], releases[1], Gates()) is None


def test_the_window_refuses_a_second_step_on_its_own_even_when_the_first_was_accepted_once() -> None:
    releases = creeping_feed()
    first = _diff(releases[0], releases[1])
    accepted = (first.percent_v4, first.percent_v6)  # accepted once: it went live, and its change counts
    window_only = replace(UNATTENDED, max_added_percent=None, reserved_space="allow")
    refused = _refused(releases[1], releases[2], window_only, earlier=accepted)
    assert refused == Refusal(
        "max_window_change_percent",
        "the versions that went live in the last 24 hours changed the answers for 4.688% of the IPv4 address space "
        "and this build for 4.688%: 9.375% in all; max_window_change_percent allows 5% in change_window_hours (24)",
    )
    # The same step alone in its window passes the budget (and the per-build gate): the window is what stops it
    assert _refused(releases[1], releases[2], window_only) is None
    # A shorter window is a setting
    assert replace(window_only, change_window_hours=1).change_window_hours == 1


def test_reserved_space_is_refused_on_its_own_naming_the_first_reserved_network() -> None:
    releases = creeping_feed()
    reserved_only = replace(UNATTENDED, max_added_percent=None, max_window_change_percent=None)
    refused = _refused(releases[2], releases[3], reserved_only, earlier=(9.375, 6.25))
    assert refused == Refusal(
        "reserved_space",
        'the objects answer for 0.0.0.0/8 ("This network", RFC 791, Section 3.2), reserved space the IANA registry '
        'marks not globally reachable (the first found); reserved_space "refuse" refuses any',
    )
    # 2000::/5 already holds reserved IPv6 space (the IETF's 2001::/23): the first step answers for it too
    found = _reserved(releases[1])
    assert found is not None
    assert found.network == "2001::/23"
    # A first version of a source-fed folder meets it as well (nothing to compare with, and nobody looked)
    first = reserved_only.refusal(len(releases[3]), None, None, reserved=_reserved(releases[3]))
    assert first is not None
    assert first.gate == "reserved_space"
    # "flag" and "allow" let it through (the loader records a flag as a warning); attended folders allow by default
    for gates in (replace(reserved_only, reserved_space="flag"), replace(reserved_only, reserved_space="allow")):
        assert _refused(releases[2], releases[3], gates) is None
    assert Gates().reserved_space == "allow"


# -- the allowance, and the defaults on ordinary growth ------------------------------------------------------------


def test_a_small_list_may_grow_by_the_allowance_whatever_its_share() -> None:
    gates = Gates(max_added_percent=10)
    small = networks("45.0.0.0/16", 24, 3, "x")  # 768 addresses
    grown = networks("45.0.0.0/16", 24, 200, "x")  # 197 /24s more: 6,567% growth, 50,432 addresses: under a /16
    assert _refused(small, grown, gates) is None
    wider = small + networks("46.0.0.0/15", 15, 1, "x")  # a /15: twice the allowance
    refused = _refused(small, wider, gates)
    assert refused is not None
    assert refused.reason.endswith("(and any /16, added_allowance)")
    assert _refused(small, wider, replace(gates, added_allowance=(14, 32))) is None
    # A list that never had IPv6 may start with a /32 of it, not more
    assert _refused(small, small + networks("2a01::/16", 32, 1, "x"), gates) is None
    refused = _refused(small, small + networks("2a01::/16", 31, 1, "x"), gates)
    assert refused is not None
    assert "2^97 IPv6 addresses version 1 does not, and it answers none of the family's" in refused.reason


def test_growth_is_compared_exactly_with_the_limit() -> None:
    old = networks("45.0.0.0/12", 16, 10, "x")  # 655,360 addresses
    at_limit = old + networks("46.0.0.0/16", 16, 1, "x")  # exactly 10% more
    over = at_limit + networks("47.0.0.0/32", 32, 1, "x")
    gates = Gates(max_added_percent=10, added_allowance=(32, 128))  # (any one address)
    assert _refused(old, at_limit, gates) is None
    assert _refused(old, over, gates) is not None


def test_an_ordinary_geo_update_gaining_one_percent_of_its_ranges_passes_attended_and_unattended() -> None:
    # A geo-like file of 2,000 /20s with countries; the update adds 20 ranges (1%) and moves 10 to another country
    countries = itertools.cycle(["AU", "DE", "FR", "JP", "US"])
    old = [[*row[:2], next(countries)] for row in networks("60.0.0.0/6", 20, 2000, "")]
    new = [[*row[:2], "ZZ" if k < 10 else row[2]] for k, row in enumerate(old)]
    new += [[*row[:2], "BR"] for row in networks("70.0.0.0/8", 20, 20, "")]
    found = _diff(old, new)
    growth = found.growth(4)
    assert growth is not None
    assert float(growth) == pytest.approx(0.01)
    assert _refused(old, new, Gates()) is None
    assert _refused(old, new, UNATTENDED) is None
    assert _refused(old, new, UNATTENDED, earlier=(0.5, 0.0)) is None  # earlier releases of the day counted too


# -- the settings --------------------------------------------------------------------------------------------------


def _settings(document: str) -> Gates:
    return FolderSettings.parse(document.encode(), "_settings.json").gates


def test_each_new_gate_is_a_setting_with_a_default_and_null_turns_it_off() -> None:
    chosen = _settings(
        '{"max_added_percent": 25, "added_allowance": {"ipv4": 20}, "max_window_change_percent": 2, '
        '"change_window_hours": 6, "reserved_space": "flag"}'
    )
    assert (chosen.max_added_percent, chosen.added_allowance, chosen.max_window_change_percent) == (25.0, (20, 32), 2.0)
    assert (chosen.change_window_hours, chosen.reserved_space) == (6.0, "flag")
    assert replace(chosen.unattended(), max_removed_percent=25.0, max_change_percent=None) == chosen  # they stay
    off = _settings('{"max_added_percent": null, "max_window_change_percent": null, "reserved_space": null}')
    assert (off.max_added_percent, off.max_window_change_percent, off.reserved_space) == (None, None, "allow")
    assert off.unattended().max_added_percent is None
    # Left at their defaults they leave a folder's digest as it was: no folder is rebuilt for them
    assert settings_digest(FolderSettings.parse(b'{"change_window_hours": 24}', "s")) == settings_digest(
        FolderSettings.parse(b"{}", "s")
    )


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ('{"max_added_percent": 101}', "max_added_percent must be a number from 0 to 100"),
        ('{"max_window_change_percent": "5"}', "max_window_change_percent must be a number from 0 to 100"),
        ('{"added_allowance": 16}', "added_allowance must be an object of prefix lengths"),
        ('{"added_allowance": {"ipv4": 33}}', "ipv4 from 0 to 32"),
        ('{"added_allowance": {"ipv5": 1}}', "added_allowance must be an object of prefix lengths"),
        ('{"change_window_hours": 0}', "change_window_hours must be a number of hours above 0, at most 720"),
        ('{"change_window_hours": null}', "change_window_hours must be a number of hours"),
        ('{"reserved_space": "deny"}', 'reserved_space must be "refuse", "flag" or "allow"'),
    ],
)
def test_a_bad_gate_setting_is_refused_with_what_it_takes(document: str, message: str) -> None:
    with pytest.raises(FolderError, match=message.replace("(", r"\(")):
        _settings(document)
