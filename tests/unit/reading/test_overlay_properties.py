"""The overlay (``mode=first``) on generated datasets: the first dataset with a range answers and its match is exact; a
version without gaps narrows a miss to the address alone (the reference model of
``tests/support/several.py``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.errors import NotFound
from fencepost.reading import answers
from fencepost.reading.answers import Answer
from fencepost.reading.lookup import Lookup
from tests.fakes.ranges import MemoryStore
from tests.reference import check_gap
from tests.support.several import (
    Point,
    Row,
    World,
    check_exact,
    dataset_name,
    datasets,
    extra_points,
    probes,
    publish_dataset,
    row_label,
    stretch,
    version_number,
)


@settings(max_examples=60, deadline=None)
@given(data=datasets(), extra=extra_points)
def test_the_overlay_answers_from_the_first_dataset_with_a_range_and_its_match_is_exact(
    data: list[list[Row]], extra: list[Point]
) -> None:
    store = MemoryStore()
    infos = [publish_dataset(store, index, rows) for index, rows in enumerate(data)]
    lookup = Lookup(store, ttl=60)
    world = World(data)
    for family, address in probes(data, extra):
        outcomes = [lookup.answer(info, family, address) for info in infos]
        result = answers.overlay(family, address, outcomes)
        expected = world.overlay(family, address)
        if expected is None:
            # Then no dataset has a range: NOT_FOUND, with the gap where none has one, and every version asked
            assert isinstance(result, NotFound), (family, address, result)
            details = result.details
            assert details["versions"] == [
                {"dataset": dataset_name(i), "version": version_number(i)} for i in range(len(data))
            ]
            check_exact(world, family, address, details["gap"], world.overlay)
            check_gap([row for rows in data for row in rows], family, address, details["gap"])
            continue
        # Or the first dataset with a range answers, with its own row
        assert isinstance(result, dict), (family, address, result)
        winner, row = expected
        single = outcomes[winner]
        assert isinstance(single, Answer)
        assert (result["dataset"], result["version"], result["data"]) == (
            dataset_name(winner),
            version_number(winner),
            {"label": row_label(row)},
        )
        assert {k: v for k, v in result.items() if k != "match"} == {
            k: v for k, v in single.body().items() if k != "match"
        }
        # And its match is exactly where the overlay gives that same answer
        check_exact(world, family, address, result["match"], world.overlay)


# -- a version built before gaps were stored -----------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(data=datasets(), extra=extra_points, old=st.integers(0, 3))
def test_a_version_without_gaps_narrows_a_miss_to_the_address_alone(
    data: list[list[Row]], extra: list[Point], old: int
) -> None:
    old %= len(data)
    store = MemoryStore()
    infos = [publish_dataset(store, index, rows, gaps=index != old) for index, rows in enumerate(data)]
    lookup = Lookup(store, ttl=60)
    world = World(data)
    everyone = range(len(data))

    def combined_answer(family: int, address: int) -> tuple[int | None, ...]:
        return world.answers(family, address, everyone)

    for family, address in probes(data, extra):
        outcomes = [lookup.answer(info, family, address) for info in infos]
        body = answers.combined(family, address, outcomes)
        match = stretch(family, body["match"])
        # The combined match holds the address, inside every dataset's own stretch, and the answer holds in it
        for outcome in outcomes:
            assert outcome.stretch[0] <= match[0] <= address <= match[1] <= outcome.stretch[1]
        old_misses = world.answer(old, family, address) is None
        check_exact(world, family, address, body["match"], combined_answer, maximal=not old_misses)
        if old_misses:
            assert match == (address, address)
        # The overlay: NOT_FOUND has no gap; a later winner's match is the address alone, an earlier one's exact
        result = answers.overlay(family, address, outcomes)
        expected = world.overlay(family, address)
        if expected is None:
            assert isinstance(result, NotFound)
            assert "gap" not in result.details
            assert [v["dataset"] for v in result.details["versions"]] == [dataset_name(i) for i in everyone]
            continue
        assert isinstance(result, dict)
        assert result["data"] == {"label": row_label(expected[1])}
        narrowed = expected[0] > old
        check_exact(
            world,
            family,
            address,
            result["match"],
            world.overlay,
            maximal=not narrowed,
        )
        if narrowed:
            assert stretch(family, result["match"]) == (address, address)
