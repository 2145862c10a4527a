"""The gates a build passes (``core.folders.gates``): with their defaults, no ordinary update trips them and a truncated
feed does, whatever its kind: a sparse blocklist, an IPv6 feed, a feed that loses a family. Decided on the pieces of
real and synthetic versions as a load builds them; the loader's side (a refused build leaves the live version serving,
its figures in ``load.diff``) is in ``test_version_diffs``."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction

import pytest

from fencepost.core.folders.gates import UNATTENDED, Gates
from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.space.addresses import FAMILIES, V4, V6
from fencepost.core.storage.piece_files import PieceLine, parse_piece_line, piece_lines
from fencepost.core.versions.diffs import Diff, Loss, diff
from tests.feeds import drop_list, networks
from tests.support import V4_FILE, family_ranges, read_tsv

Rows = Sequence[Sequence[str]]


def _pieces(rows: Rows) -> list[PieceLine]:
    ranges = family_ranges(rows)
    pieces = {family: ranges[family].pieces() for family in FAMILIES}
    return [parse_piece_line(line) for line in piece_lines(ranges, pieces)]


def _diff(old: Rows, new: Rows) -> Diff:
    return diff(iter(_pieces(old)), iter(_pieces(new)))


def _refusal(old: Rows, new: Rows, gates: Gates | None = None) -> str | None:
    refused = (gates or Gates()).refusal(len(new), _diff(old, new), baseline=1)
    return None if refused is None else f"{refused.gate}: {refused.reason}"


# -- the defaults, on a sparse blocklist -----------------------------------------------------------------------------


def test_a_blocklist_cut_to_its_first_lines_is_refused_though_it_changes_a_tiny_share_of_the_address_space() -> None:
    # Given a DROP-style list, then the same object cut to its first 4 lines
    full = drop_list()
    cut = full[:4]
    found = _diff(full, cut)
    # Then, of the whole address space, almost nothing changed: the old gate at 1% lets it through
    assert found.percent_v4 < 0.1
    assert found.percent_v6 < 1e-5
    assert _refusal(full, cut, Gates(max_removed_percent=None, max_change_percent=1)) is None
    # But it lost 996 of the 1,000 IPv4 pieces it served: the default gate refuses it, naming both figures
    assert found.loss[V4] == Loss(1000, 996, 1000 * 4096, 996 * 4096)
    reason = _refusal(full, cut)
    assert reason is not None
    assert reason.startswith("max_removed_percent: 99.6% of the IPv4 pieces version 1 serves (996 of 1,000)")
    assert "max_removed_percent allows 25%" in reason


def test_a_blocklist_cut_to_a_tenth_is_refused_and_one_that_loses_a_few_entries_is_not() -> None:
    full = drop_list()
    assert _refusal(full, full[::10]) is not None  # 90% gone
    weekly = [row for k, row in enumerate(full) if k % 40]  # 2.5% delisted, 30 new entries
    weekly += networks("203.0.0.0/16", 24, 30, "drop")
    assert _refusal(full, weekly) is None


def test_an_ipv6_only_truncation_is_refused_on_the_ipv6_figures() -> None:
    # IPv4 untouched, the IPv6 part cut to a quarter: IPv6 is measured against what the version served, not 2**128
    full = drop_list()
    cut = full[:1000] + full[1000::4]
    found = _diff(full, cut)
    assert found.loss[V4].pieces_lost == 0
    assert found.loss[V6] == Loss(200, 150, 200 << 96, 150 << 96)
    reason = _refusal(full, cut)
    assert reason is not None
    assert "75% of the IPv6 pieces version 1 serves (150 of 200)" in reason


def test_a_feed_that_loses_a_whole_family_is_refused() -> None:
    full = drop_list()
    for kept in (full[:1000], full[1000:]):  # no IPv6 any more; no IPv4 any more
        reason = _refusal(full, kept)
        assert reason is not None
        assert "100% of the IPv" in reason


def test_a_feed_that_grows_tenfold_passes_the_defaults_and_max_change_percent_is_the_gate_for_growth() -> None:
    # Growth loses nothing a version served: every old answer stays. A feed may grow for good reasons (a new
    # source merged in, a finer split of new space), so the default gates let it through
    small = networks("100.0.0.0/8", 24, 100, "a")
    grown = small + networks("101.0.0.0/8", 24, 900, "b")
    found = _diff(small, grown)
    assert (found.added, found.loss[V4].pieces_lost, found.loss[V4].addresses_lost) == (900, 0, 0)
    assert _refusal(small, grown) is None
    # Whoever wants a growth refused sets max_change_percent (of the whole address space)
    reason = _refusal(small, grown, Gates(max_change_percent=0.001))
    assert reason is not None
    assert reason.startswith("max_change_percent: the answers changed for 0.00536442% of the IPv4")


# -- each setting ----------------------------------------------------------------------------------------------------


def test_an_edit_to_a_small_list_is_never_refused_by_share_but_removed_allowance_can_lower_that() -> None:
    # A hand-kept list of 10 ranges loses 7: a large share, but fewer pieces than removed_allowance (50)
    ten = networks("192.0.2.0/24", 28, 10, "x")
    assert _refusal(ten, ten[:3]) is None
    reason = _refusal(ten, ten[:3], Gates(removed_allowance=5))
    assert reason is not None
    assert "70% of the IPv4 pieces version 1 serves (7 of 10)" in reason
    assert "(and any 5 pieces, removed_allowance)" in reason


def test_the_addresses_share_catches_a_wide_range_lost_among_narrow_ones_kept() -> None:
    # 1,000 /24s kept, 60 /12s gone: 5.7% of the pieces, but 99.9% of the addresses the version answered
    narrow = networks("200.0.0.0/8", 24, 1000, "n")
    wide = networks("16.0.0.0/4", 12, 60, "w")
    found = _diff(narrow + wide, narrow)
    assert found.loss[V4].pieces_fraction() == Fraction(60, 1060)
    reason = _refusal(narrow + wide, narrow)
    assert reason is not None
    assert "of the IPv4 addresses version 1 answers (62,914,560 of 63,170,560) are gone or answer otherwise" in reason


def test_the_share_is_compared_exactly_with_the_limit() -> None:
    # 100 pieces, 25 of them changed: exactly 25% passes the default, one more piece fails it
    old = networks("100.0.0.0/16", 24, 100, "a")
    at_limit = [[*row[:2], "b"] if k < 25 else row for k, row in enumerate(old)]
    over = [[*row[:2], "b"] if k < 26 else row for k, row in enumerate(old)]
    gates = Gates(removed_allowance=0)
    assert _refusal(old, at_limit, gates) is None
    assert _refusal(old, over, gates) is not None


def test_min_ranges_applies_to_every_build_even_without_a_baseline() -> None:
    gates = Gates(min_ranges=500)
    refused = gates.refusal(499, None, baseline=None)
    assert refused is not None
    assert (refused.gate, refused.reason) == (
        "min_ranges",
        "the objects hold 499 ranges; min_ranges asks for at least 500",
    )
    assert gates.refusal(500, None, baseline=None) is None
    # Without a baseline nothing else applies
    assert Gates(max_removed_percent=0, max_change_percent=0, removed_allowance=0).refusal(1, None, None) is None


def test_null_turns_a_percent_gate_off() -> None:
    full = drop_list()
    assert _refusal(full, full[:4], Gates(max_removed_percent=None)) is None


# -- the shared real IPv4 file -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> list[list[str]]:
    return read_tsv(V4_FILE)


def test_on_the_real_ipv4_file_two_percent_of_rows_changed_passes_and_a_file_cut_at_sixty_percent_does_not(
    real: list[list[str]],
) -> None:
    # 2% of the rows (one in 50, spread through the file) get another country: an ordinary update
    picked = set(random.Random(22).sample(range(len(real)), len(real) // 50))
    updated = [[row[0], row[1], "ZZ" if row[2] != "ZZ" else "AQ"] if k in picked else row for k, row in enumerate(real)]
    served = _pieces(real)  # the live version's pieces, built once for both builds below
    found = diff(iter(served), iter(_pieces(updated)))
    assert 0.015 < found.loss[V4].pieces_fraction() < 0.05
    assert Gates().refusal(len(updated), found, baseline=1) is None
    # The file cut after 60% of its rows: 40% of what it served is gone
    cut = real[: len(real) * 6 // 10]
    found = diff(iter(served), iter(_pieces(cut)))
    assert 0.35 < found.loss[V4].pieces_fraction() < 0.45
    assert Gates().refusal(len(cut), found, baseline=1) is not None


def test_a_folder_fed_by_its_source_gets_the_unattended_defaults_for_the_gates_it_left_unset() -> None:
    def gates(document: str) -> Gates:
        return FolderSettings.parse(document.encode(), "s").gates

    assert gates("{}").unattended() == Gates(
        max_removed_percent=10.0,
        max_change_percent=5.0,
        max_added_percent=10.0,
        max_window_change_percent=5.0,
        reserved_space="refuse",
    )
    assert UNATTENDED == {
        "max_removed_percent": 10.0,
        "max_change_percent": 5.0,
        "max_added_percent": 10.0,
        "max_window_change_percent": 5.0,
        "reserved_space": "refuse",
    }
    chosen = gates('{"max_removed_percent": 30, "max_change_percent": null}').unattended()
    assert (chosen.max_removed_percent, chosen.max_change_percent) == (30.0, None)
    assert gates('{"min_ranges": 500}').unattended().min_ranges == 500
    # Which gates were written is no part of a folder's digest: the same values make the same version
    explicit = FolderSettings.parse(b'{"max_removed_percent": 25}', "s")
    assert settings_digest(explicit) == settings_digest(FolderSettings.parse(b"{}", "s"))
