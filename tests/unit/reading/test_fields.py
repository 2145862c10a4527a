"""Field selection over one answer: parsing the paths, their bounds, and what a selection keeps."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fencepost.errors import InvalidFields
from fencepost.reading.fields import MAX_FIELDS_CHARS, MAX_PATHS, TOP_LEVEL, parse_list, parse_text, select

FOUND: dict[str, Any] = {
    "ip": "1.0.32.5",
    "dataset": "geo",
    "version": 3,
    "range": {"start": "1.0.32.0", "end": "1.0.63.255", "cidrs": ["1.0.32.0/19"]},
    "match": {"start": "1.0.32.0", "end": "1.0.63.255", "network": "1.0.32.0/19"},
    "data": {"country": "CN", "a.b": "dotted"},
}


def test_a_selection_keeps_the_named_paths_and_ip_in_answer_order() -> None:
    selected = select(FOUND, parse_text("data.country,match.network,version"))
    assert selected == {"ip": "1.0.32.5", "version": 3, "match": {"network": "1.0.32.0/19"}, "data": {"country": "CN"}}
    assert list(selected) == ["ip", "version", "match", "data"]


def test_only_the_first_dot_splits_so_dotted_columns_are_selectable() -> None:
    assert select(FOUND, parse_text("data.a.b"))["data"] == {"a.b": "dotted"}


def test_unknown_keys_below_a_known_field_select_nothing() -> None:
    selected = select(FOUND, parse_text("data.nosuch,match.nosuch,version.x,reserved.name"))
    assert selected == {"ip": "1.0.32.5", "match": {}, "data": {}}


def test_a_field_named_whole_and_by_a_key_is_kept_whole() -> None:
    assert select(FOUND, parse_text("data.country,data"))["data"] == FOUND["data"]


def test_error_is_always_kept_and_what_sits_beside_it_only_when_selected() -> None:
    missing = {"ip": "10.1.2.3", "reserved": {"name": "Private-Use"}, "error": {"code": "NOT_FOUND", "message": "m"}}
    assert select(missing, parse_text("data")) == {"ip": "10.1.2.3", "error": missing["error"]}
    assert select(missing, parse_text("reserved.name")) == missing


def test_the_list_form_does_not_split_on_commas() -> None:
    row = {"ip": "1.2.3.4", "data": {"a,b": "x", "a": "y"}}
    assert select(row, parse_list(["data.a,b"]))["data"] == {"a,b": "x"}


@pytest.mark.parametrize(
    "text",
    ["", ",", "data,,version", "data,", "data.", ".country", "nosuch", "__proto__", "Data", " data", "données"],
)
def test_empty_paths_and_unknown_top_level_fields_are_invalid_fields(text: str) -> None:
    with pytest.raises(InvalidFields):
        parse_text(text)


def test_the_parameter_is_bounded_in_length_and_paths() -> None:
    parse_text(",".join(["version"] * MAX_PATHS))
    with pytest.raises(InvalidFields, match="at most"):
        parse_text(",".join(["version"] * (MAX_PATHS + 1)))
    with pytest.raises(InvalidFields, match="longer than"):
        parse_text("data." + "x" * MAX_FIELDS_CHARS)
    with pytest.raises(InvalidFields, match="longer than"):
        parse_list(["data." + "x" * MAX_FIELDS_CHARS])


@pytest.mark.parametrize("value", ["version", [], [1], ["version", None], {"version": 1}])
def test_the_list_form_takes_only_a_non_empty_list_of_strings(value: object) -> None:
    with pytest.raises(InvalidFields):
        parse_list(value)


KEYS = st.text(min_size=1, max_size=6)
ANSWERS = st.fixed_dictionaries(
    {"ip": st.text(max_size=8)},
    optional={
        "dataset": st.text(max_size=8),
        "version": st.integers(),
        "range": st.dictionaries(KEYS, st.text(max_size=4), max_size=3),
        "match": st.dictionaries(KEYS, st.text(max_size=4), max_size=3),
        "data": st.dictionaries(KEYS, st.text(max_size=4), max_size=4),
        "reserved": st.dictionaries(KEYS, st.text(max_size=4), max_size=3),
        "error": st.fixed_dictionaries({"code": st.text(max_size=4)}),
    },
)
PATHS = st.lists(
    st.one_of(st.sampled_from(TOP_LEVEL), st.tuples(st.sampled_from(TOP_LEVEL), KEYS).map(".".join)),
    min_size=1,
    max_size=8,
)


@given(ANSWERS)
def test_selecting_every_top_level_field_is_the_identity(answer: dict[str, Any]) -> None:
    assert select(answer, parse_text(",".join(TOP_LEVEL))) == answer


@given(ANSWERS, PATHS)
def test_a_selection_never_adds_keys_and_always_keeps_ip(answer: dict[str, Any], paths: list[str]) -> None:
    selected = select(answer, parse_list(paths))
    assert selected["ip"] == answer["ip"]
    assert set(selected) <= set(answer)
    for field, value in selected.items():
        if isinstance(value, dict):
            assert value.items() <= answer[field].items()
