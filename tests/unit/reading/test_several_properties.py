"""Several datasets in one lookup, on generated range sets: the combined answer's ``match`` and the overlay's
narrowed ``match`` and NOT_FOUND ``gap`` must each be exactly the stretch in which the answer stays the same,
checked by brute force over the original rows of every dataset (``tests.reference``), with the largest CIDR block
around the address checked with ``ipaddress`` (the reference: ``tests/support/several.py``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.core.space.addresses import V4
from fencepost.errors import NotFound, UnknownDataset
from fencepost.reading import answers
from fencepost.reading.answers import Answer, Miss
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
    version_number,
)

# -- the brute-force reference ---------------------------------------------------------------------------------------


def _without_reserved(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "reserved"}


def _reserved(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key == "reserved"}


def _check_element(world: World, index: int, point: Point, outcome: Answer | Miss, element: dict[str, Any]) -> None:
    """One dataset's part of a combined answer is its single-dataset answer without ``reserved``, and right."""
    family, address = point
    expected = world.answer(index, family, address)
    if expected is None:
        assert isinstance(outcome, Miss), (index, family, address)
        assert element == {**_without_reserved(outcome.details()), "error": NotFound(outcome.message()).body()}
        assert element["error"]["code"] == "NOT_FOUND"
        if outcome.info.gaps:
            check_gap(world.data[index], family, address, element["gap"])
        else:
            assert "gap" not in element
    else:
        assert isinstance(outcome, Answer), (index, family, address)
        assert element == _without_reserved(outcome.body())
        assert element["data"] == {"label": row_label(expected)}
    assert (element["dataset"], element["version"]) == (dataset_name(index), version_number(index))


# -- the combined answer ---------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(data=datasets(), extra=extra_points, unknown=st.one_of(st.none(), st.integers(0, 3)))
def test_the_combined_match_is_exactly_the_stretch_where_every_answer_holds(
    data: list[list[Row]], extra: list[Point], unknown: int | None
) -> None:
    # Given 2 to 4 datasets of crossing ranges, perhaps one of them not loaded
    store = MemoryStore()
    infos = [publish_dataset(store, index, rows) for index, rows in enumerate(data)]
    lookup = Lookup(store, ttl=60)
    assert [lookup.live(dataset_name(index)) for index in range(len(data))] == infos
    if unknown is not None and unknown >= len(data):
        unknown = None
    known = [index for index in range(len(data)) if index != unknown]
    world = World(data)
    for family, address in probes(data, extra):
        # When every dataset's answer for the address is combined
        outcomes: list[answers.Outcome] = [lookup.answer(info, family, address) for info in infos]
        if unknown is not None:
            outcomes[unknown] = answers.Unknown(
                dataset_name(unknown), UnknownDataset(f"no dataset named {dataset_name(unknown)!r}")
            )
        body = answers.combined(family, address, outcomes)
        # Then each element is that dataset's own answer
        assert len(body["answers"]) == len(data)
        for index, (outcome, element) in enumerate(zip(outcomes, body["answers"], strict=True)):
            if isinstance(outcome, answers.Unknown):
                assert element == {
                    "ip": body["ip"],
                    "dataset": dataset_name(index),
                    "error": {"code": "UNKNOWN_DATASET", "message": f"no dataset named {dataset_name(index)!r}"},
                }
            else:
                _check_element(world, index, (family, address), outcome, element)
        # And the match is exactly the stretch in which every known dataset gives the same answer
        check_exact(world, family, address, body["match"], lambda f, p: world.answers(f, p, known))
        # And reserved is given once, at the top
        first = outcomes[known[0]]
        assert not isinstance(first, answers.Unknown)
        single = first.body() if isinstance(first, Answer) else first.details()
        assert _reserved(body) == _reserved(single)
        assert list(body) == ["ip", "match", *_reserved(body), "answers"]


def test_an_unknown_dataset_leaves_the_match_to_the_known_ones() -> None:
    rows: list[list[Row]] = [[(V4, 100, 199)], [(V4, 150, 300)], [(V4, 120, 130)]]
    store = MemoryStore()
    infos = [publish_dataset(store, index, data) for index, data in enumerate(rows)]
    lookup = Lookup(store, ttl=60)
    outcomes: list[answers.Outcome] = [lookup.answer(info, V4, 160) for info in infos]
    outcomes[0] = answers.Unknown("d0", UnknownDataset("no dataset named 'd0' is loaded"))
    body = answers.combined(V4, 160, outcomes)
    # d1's piece 150..300 and d2's gap 131..(top) meet in 150..300: d0's 100..199 does not count
    assert body["match"] == {"start": "0.0.0.150", "end": "0.0.1.44", "network": "0.0.0.160/27"}
    assert body["answers"][0] == {
        "ip": "0.0.0.160",
        "dataset": "d0",
        "error": {"code": "UNKNOWN_DATASET", "message": "no dataset named 'd0' is loaded"},
    }
    # With every dataset unknown, there is no match at all
    nothing = answers.combined(V4, 160, [answers.Unknown("d0", UnknownDataset("gone"))])
    assert "match" not in nothing


# -- the overlay ---------------------------------------------------------------------------------------------------
