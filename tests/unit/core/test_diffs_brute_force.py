"""What changed between two versions (``fencepost.core.versions.diffs``) agrees with brute force over the rows of random
versions."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.core.space.addresses import FAMILIES, V4, V6
from fencepost.core.versions.diffs import Diff, Loss, changed_pieces, diff
from tests.support.diffs import brute_force_answer, centre, changes_at, random_rows, universe, version


@settings(max_examples=150, deadline=None)
@given(data=st.data(), partitions=st.tuples(st.integers(1, 255), st.integers(1, 2**20 - 1)))
def test_the_diff_agrees_with_brute_force_over_the_rows(data: st.DataObject, partitions: tuple[int, int]) -> None:
    # Given two versions built from random rows in a window around a partition boundary of each family
    centres = {V4: centre(V4, partitions[0]), V6: centre(V6, partitions[1])}
    old, new = data.draw(random_rows(centres)), data.draw(random_rows(centres))
    old_pieces, new_pieces = version(old), version(new)
    # When they are compared
    result = diff(iter(old_pieces), iter(new_pieces))
    changes = list(changed_pieces(iter(old_pieces), iter(new_pieces)))
    # Then the changed addresses are those whose answer differs, found <-> NOT_FOUND included
    for family in FAMILIES:
        expected = covered = lost = gained = 0
        for address, weight in universe(family, centres[family]):
            before, after = brute_force_answer(old, family, address), brute_force_answer(new, family, address)
            expected += weight * (before != after)
            covered += weight * (before is not None)
            lost += weight * (before is not None and before != after)
            gained += weight * (before is None and after is not None)
            # And the changed stretches hold exactly those addresses, with both answers
            assert changes_at(changes, family, address) == ((before, after) if before != after else None)
        assert (result.changed_v4 if family == V4 else result.changed_v6) == expected
        assert sum(c.end - c.start + 1 for c in changes if c.family == family) == expected
        # And the loss counts what the old version answered, and the old pieces any of whose addresses changed
        held = [p for p in old_pieces if p.family == family]
        touched = [
            p for p in held if any(c.family == family and c.start <= p.end and p.start <= c.end for c in changes)
        ]
        assert result.loss[family] == Loss(len(held), len(touched), covered, lost)
        # And what was gained is what the old version did not answer and the new one does, a share of the covered
        assert result.gained[family] == gained
        assert result.growth(family) == (Fraction(gained, covered) if covered else None)
    # And the changed stretches are in order, disjoint, and merged where they touch with the same answers
    for first, second in itertools.pairwise(changes):
        assert (first.family, first.end) < (second.family, second.start)
        touching = (first.family, first.end + 1) == (second.family, second.start)
        assert not touching or (first.old_hash, first.new_hash) != (second.old_hash, second.new_hash)
    # And pieces are matched by their bounds
    old_by_bounds = {(p.family, p.start, p.end): p.hash for p in old_pieces}
    new_by_bounds = {(p.family, p.start, p.end): p.hash for p in new_pieces}
    both = old_by_bounds.keys() & new_by_bounds.keys()
    assert result.unchanged == sum(old_by_bounds[key] == new_by_bounds[key] for key in both)
    assert result.changed == len(both) - result.unchanged
    assert (result.added, result.removed) == (len(new_pieces) - len(both), len(old_pieces) - len(both))
    # And comparing a version with itself changes nothing
    same = diff(old_pieces, old_pieces)
    assert same == Diff(
        unchanged=len(old_pieces), loss={f: same.loss[f]._replace(pieces_lost=0, addresses_lost=0) for f in FAMILIES}
    )
