"""``python -m bench.releases``: two releases of a list, read by the service's readers, measured as a build does."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from bench.releases import compare, main


def _list(count: int) -> str:
    return "# a netset\n" + "".join(f"45.{k // 256}.{k % 256}.0/24\n" for k in range(count))


def test_a_release_that_lost_a_tenth_is_refused_by_the_unattended_gates_only(tmp_path: Path) -> None:
    (tmp_path / "a.netset").write_text(_list(1000))
    (tmp_path / "b.netset.gz").write_bytes(gzip.compress(_list(880).encode()))  # gzip, as publishers ship them
    pair = compare(tmp_path / "a.netset", tmp_path / "b.netset.gz")
    assert pair.entries == (1000, 880)
    assert pair.removed_pieces == pytest.approx(12.0)
    assert pair.removed_addresses == pytest.approx(12.0)
    assert (pair.default, pair.unattended) == ("goes live", "refused (max_removed_percent)")


def test_the_command_prints_one_row_per_pair_and_wants_pairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.netset").write_text(_list(100))
    (tmp_path / "b.netset").write_text(_list(101))
    assert main([str(tmp_path / "a.netset"), str(tmp_path / "b.netset")]) == 0
    row = capsys.readouterr().out.splitlines()[-1]
    assert row == (
        "| a.netset → b.netset | 100 → 101 | 0.00% | 0.000% | 1.000% | 0.0000% | none | goes live | goes live |"
    )
    with pytest.raises(SystemExit):
        main([str(tmp_path / "a.netset")])


def test_growth_and_reserved_space_are_measured_and_decided_as_a_build_of_a_source_fed_folder_would(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.netset").write_text(_list(1000))
    (tmp_path / "b.netset").write_text(_list(1000) + "46.0.0.0/8\n")  # a /8 more: 6,554% of what it covered
    grown = compare(tmp_path / "a.netset", tmp_path / "b.netset")
    assert grown.added_addresses == pytest.approx(2**24 / 256_000 * 100)
    assert (grown.default, grown.unattended) == ("goes live", "refused (max_added_percent)")
    # FireHOL's level 1 holds the bogons in every release: a release that adds one entry meets reserved_space
    (tmp_path / "c.netset").write_text("0.0.0.0/8\n" + _list(1000)[12:])
    (tmp_path / "d.netset").write_text("0.0.0.0/8\n" + _list(1001)[12:])
    bogons = compare(tmp_path / "c.netset", tmp_path / "d.netset")
    assert (bogons.reserved, bogons.default, bogons.unattended) == (
        "0.0.0.0/8",
        "goes live",
        "refused (reserved_space)",
    )
