"""Diffs between versions: examples, and a property test against brute force over the original rows.

The brute force answers each address from the rows themselves (``tests.reference.answer_of_rows``), not from the
flattened pieces, so it checks flattening, the pieces file and the streaming merge together.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction

import pytest

from fencepost.core.space.addresses import TOP, V4, V6
from fencepost.core.storage.piece_files import PieceLine, answer_hash, parse_piece_line, piece_lines
from fencepost.core.versions.build import FamilyRanges
from fencepost.core.versions.diffs import Change, Diff, Loss, changed_pieces, diff
from tests.support.diffs import Row, version


def _diff(old: Sequence[Row], new: Sequence[Row]) -> Diff:
    return diff(iter(version(old)), iter(version(new)))


def _h(values: tuple[str, ...], start: int, end: int) -> str:
    return answer_hash(values, (start, end))


def _loss(v4: Loss = Loss(), v6: Loss = Loss()) -> dict[int, Loss]:  # noqa: B008 - Loss is an immutable tuple
    return {V4: v4, V6: v6}


def _gained(v4: int = 0, v6: int = 0) -> dict[int, int]:
    return {V4: v4, V6: v6}


# -- examples ------------------------------------------------------------------------------------------------------


def test_identical_versions_are_all_unchanged() -> None:
    rows: list[Row] = [(V4, 0, 99, ("a",)), (V4, 10, 20, ("b",)), (V6, 2**100, 2**101, ("c",))]
    result = _diff(rows, rows)
    # 0-9, 10-20, 21-99 and the IPv6 range: all kept, none lost
    assert result == Diff(unchanged=4, loss=_loss(Loss(3, 0, 100, 0), Loss(1, 0, 2**100 + 1, 0)))
    assert result.max_percent == 0.0
    assert not result.exceeds(0)
    assert list(changed_pieces(version(rows), version(rows))) == []


def test_a_piece_whose_data_changed() -> None:
    old: list[Row] = [(V4, 0, 9, ("a",)), (V4, 10, 19, ("b",))]
    new: list[Row] = [(V4, 0, 9, ("a",)), (V4, 10, 19, ("B",))]
    assert _diff(old, new) == Diff(unchanged=1, changed=1, changed_v4=10, loss=_loss(Loss(2, 1, 20, 10)))
    assert list(changed_pieces(version(old), version(new))) == [
        Change(V4, 10, 19, _h(("b",), 10, 19), _h(("B",), 10, 19))
    ]


def test_a_piece_split_in_two_changes_only_where_its_answer_changed() -> None:
    # The range's reported extent is part of the answer: halving it changes every address, even with equal data
    old: list[Row] = [(V4, 0, 99, ("a",))]
    new: list[Row] = [(V4, 0, 49, ("a",)), (V4, 50, 99, ("a",))]
    assert _diff(old, new) == Diff(added=2, removed=1, changed_v4=100, loss=_loss(Loss(1, 1, 100, 100)))
    # A nested range splits the outer piece in three; only the nested stretch answers something else
    nested: list[Row] = [(V4, 0, 99, ("a",)), (V4, 40, 59, ("b",))]
    # The old piece is lost (some of its addresses answer otherwise), but only 20 of its 100 addresses
    assert _diff(old, nested) == Diff(added=3, removed=1, changed_v4=20, loss=_loss(Loss(1, 1, 100, 20)))
    assert list(changed_pieces(version(old), version(nested))) == [
        Change(V4, 40, 59, _h(("a",), 0, 99), _h(("b",), 40, 59))
    ]


def test_a_removed_range_counts_as_changed_addresses() -> None:
    old: list[Row] = [(V4, 0, 9, ("a",)), (V4, 1 << 24, (2 << 24) - 1, ("b",))]
    new: list[Row] = [(V4, 0, 9, ("a",))]
    result = _diff(old, new)
    assert result == Diff(unchanged=1, removed=1, changed_v4=1 << 24, loss=_loss(Loss(2, 1, 10 + (1 << 24), 1 << 24)))
    assert result.percent_v4 == 100 / 256
    assert result.loss[V4].pieces_fraction() == Fraction(1, 2)
    assert result.loss[V4].addresses_fraction() == Fraction(1 << 24, 10 + (1 << 24))
    assert list(changed_pieces(version(old), version(new))) == [
        Change(V4, 1 << 24, (2 << 24) - 1, _h(("b",), 1 << 24, (2 << 24) - 1), None)
    ]
    # And the other way round, NOT_FOUND -> found
    grown = _diff(new, old)
    assert grown == Diff(
        unchanged=1, added=1, changed_v4=1 << 24, loss=_loss(Loss(1, 0, 10, 0)), gained=_gained(1 << 24)
    )
    assert grown.growth(V4) == Fraction(1 << 24, 10)  # of the 10 addresses the old version answered


def test_a_whole_new_ipv6_range() -> None:
    old: list[Row] = [(V4, 5, 9, ("a",))]
    new: list[Row] = [(V4, 5, 9, ("a",)), (V6, 1 << 125, (1 << 126) - 1, ("x",))]
    result = _diff(old, new)
    assert result == Diff(
        unchanged=1, added=1, changed_v6=1 << 125, loss=_loss(Loss(1, 0, 5, 0)), gained=_gained(0, 1 << 125)
    )
    assert result.loss[V6].addresses_fraction() == 0  # nothing held, nothing lost
    assert (result.growth(V4), result.growth(V6)) == (Fraction(0), None)  # growth from nothing has no share
    assert (result.percent_v4, result.percent_v6, result.max_percent) == (0.0, 12.5, 12.5)
    assert result.exceeds(12)
    assert not result.exceeds(12.5)


def test_ipv4_and_ipv6_are_counted_separately_and_a_single_ipv6_address_is_never_zero_percent() -> None:
    old: list[Row] = [(V4, 0, 3, ("a",)), (V6, 0, 3, ("a",))]
    new: list[Row] = [(V4, 0, 3, ("b",)), (V6, 0, 2, ("a",)), (V6, 3, 3, ("a",))]
    result = _diff(old, new)
    lost = Loss(1, 1, 4, 4)
    assert result == Diff(changed=1, added=2, removed=1, changed_v4=4, changed_v6=4, loss=_loss(lost, lost))
    one = Diff(changed_v6=1)
    assert 0 < one.percent_v6 == pytest.approx(100 / 2**128)
    assert one.exceeds(0)
    assert not one.exceeds(1e-36)
    assert list(changed_pieces(version(old), version(new))) == [
        Change(V4, 0, 3, _h(("a",), 0, 3), _h(("b",), 0, 3)),
        Change(V6, 0, 2, _h(("a",), 0, 3), _h(("a",), 0, 2)),
        Change(V6, 3, 3, _h(("a",), 0, 3), _h(("a",), 3, 3)),
    ]


def test_touching_changes_with_the_same_hashes_are_merged() -> None:
    old = [PieceLine(V4, 0, 4, "a" * 16), PieceLine(V4, 5, 9, "a" * 16), PieceLine(V4, 10, 10, "c" * 16)]
    new = [PieceLine(V4, 0, 9, "b" * 16)]
    assert list(changed_pieces(old, new)) == [
        Change(V4, 0, 9, "a" * 16, "b" * 16),  # the old pieces' cut does not show
        Change(V4, 10, 10, "c" * 16, None),
    ]
    assert diff(old, new) == Diff(added=1, removed=3, changed_v4=11, loss=_loss(Loss(3, 3, 11, 11)))


def test_piece_lines_round_trip_and_malformed_lines_are_refused() -> None:
    ranges = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
    ranges[V6].add(0, TOP[V6], ("x", "y"))
    ranges[V4].add(10, 20, ("a\tb", "é"))
    lines = list(piece_lines(ranges, {family: ranges[family].pieces() for family in (V6, V4)}))
    tabbed, whole = _h(("a\tb", "é"), 10, 20), _h(("x", "y"), 0, TOP[V6])
    assert lines == [f"4\ta\t14\t{tabbed}\n", f"6\t0\t{'f' * 32}\t{whole}\n"]
    assert parse_piece_line(lines[1]) == PieceLine(V6, 0, TOP[V6], _h(("x", "y"), 0, TOP[V6]))
    assert parse_piece_line(lines[0].rstrip("\n")).start == 10
    assert _h(("a", "b"), 0, 1) != _h(("a,b",), 0, 1) != _h(("a",), 0, 1)
    zeros = "0" * 16
    bad_lines = ["", "4\t0\t1\n", f"4\t0x1\t2\t{zeros}", f"4\t0\t1\t{zeros[1:]}", f"4\t0\tA\t{zeros}", "4 0 1 x"]
    for bad in [*bad_lines, f"5\t0\t1\t{zeros}", f"4\t0\t1\t{zeros}\n\n"]:
        with pytest.raises(ValueError, match="malformed piece line"):
            parse_piece_line(bad)


@pytest.mark.parametrize(
    ("pieces", "message"),
    [
        ([PieceLine(V4, 5, 9, "0" * 16), PieceLine(V4, 0, 1, "0" * 16)], "sorted and disjoint"),
        ([PieceLine(V4, 0, 5, "0" * 16), PieceLine(V4, 5, 9, "0" * 16)], "sorted and disjoint"),
        ([PieceLine(V6, 0, 5, "0" * 16), PieceLine(V4, 9, 9, "0" * 16)], "sorted and disjoint"),
        ([PieceLine(V4, 9, 5, "0" * 16)], "not a range"),
        ([PieceLine(V4, 0, TOP[V4] + 1, "0" * 16)], "not a range"),
        ([PieceLine(5, 0, 1, "0" * 16)], "unknown address family"),
    ],
)
@pytest.mark.parametrize("side", ["old", "new"])
def test_unsorted_or_overlapping_input_is_refused(pieces: list[PieceLine], message: str, side: str) -> None:
    fine = [PieceLine(V4, 0, 3, "0" * 16)]
    old, new = (pieces, fine) if side == "old" else (fine, pieces)
    with pytest.raises(ValueError, match=f"{side} piece .*{message}"):
        diff(old, new)
    with pytest.raises(ValueError, match=message):
        list(changed_pieces(old, new))


def test_the_streams_are_read_lazily() -> None:
    def stream(count: int) -> Iterator[PieceLine]:
        for index in range(count):
            yield PieceLine(V4, 2 * index, 2 * index, "0" * 16)
        raise AssertionError("read past the end")  # pragma: no cover

    changes = changed_pieces(stream(10**9), (PieceLine(V4, 1, 1, "1" * 16),))
    assert next(changes) == Change(V4, 0, 0, "0" * 16, None)
    assert next(changes) == Change(V4, 1, 1, None, "1" * 16)
