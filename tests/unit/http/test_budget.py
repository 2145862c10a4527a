"""The response budget: what it counts is never less than what the Lambda runtime sends, and a list answered within
it is a prefix of full answers, then brief ones, never over the budget."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from fencepost.http.budget import DEFAULT_BUDGET_BYTES, ResponseBudget, cost
from fencepost.http.responses import utf8_text

LAMBDA_LIMIT = 6 * 1024 * 1024 + 100  # Lambda's "maximum allowed payload size (6291556 bytes)"

# Any text, lone surrogates included (a JSON escape like "\ud800" parses to one).
TEXT = st.lists(st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr)), max_size=40).map("".join)


def _payload_bytes(body: str, *, ensure_ascii: bool) -> int:
    """The bytes ``body`` adds to the invocation payload, as a runtime encodes the response (3.12 sends UTF-8)."""
    empty = len(json.dumps({"body": ""}, ensure_ascii=ensure_ascii).encode())
    return len(json.dumps({"body": utf8_text(body)}, ensure_ascii=ensure_ascii).encode()) - empty


@given(TEXT)
def test_the_cost_of_a_text_is_at_least_what_it_takes_in_the_payload(text: str) -> None:
    assert cost(text) >= _payload_bytes(text, ensure_ascii=False)
    assert cost(text) >= _payload_bytes(text, ensure_ascii=True)


@given(TEXT, st.integers(0, 400))
def test_a_body_fits_exactly_when_its_cost_is_within_the_budget(text: str, limit: int) -> None:
    assert ResponseBudget(limit).fits(text) == (cost(text) <= limit)


@given(st.lists(st.tuples(TEXT, st.integers(0, 300)), max_size=30), st.integers(0, 3000))
def test_a_list_is_answered_in_full_up_to_the_budget_then_briefly(elements: list[tuple[str, int]], limit: int) -> None:
    # Given elements whose full answers are of any size, and a budget
    budget = ResponseBudget(limit)
    parts = budget.fit(
        elements,
        full=lambda element: json.dumps({"ip": element[0], "data": "x" * element[1]}),
        brief=lambda element: json.dumps({"ip": element[0], "error": "RESPONSE_TOO_LARGE"}),
        frame='{"results":[]}',
    )
    body = '{"results":[' + ",".join(parts) + "]}"
    # Then one part per element, full ones first, then brief ones
    answered = [json.loads(part) for part in parts]
    assert len(answered) == len(elements)
    kinds = ["data" in answer for answer in answered]
    assert kinds == sorted(kinds, reverse=True)
    # And the body is within the budget whenever the brief answers alone fit it
    briefs = '{"results":[' + ",".join(json.dumps({"ip": e[0], "error": "RESPONSE_TOO_LARGE"}) for e in elements) + "]}"
    if cost(briefs) <= limit:
        assert cost(body) <= limit
    # And an element is brief only if its full answer would not have fit
    full = kinds.count(True)
    if full < len(elements):
        element = elements[full]
        longer = json.dumps({"ip": element[0], "data": "x" * element[1]})
        assert budget.used + cost(longer) - cost(parts[full]) > limit


def test_the_default_budget_leaves_room_under_lambdas_limit_even_base64_encoded() -> None:
    assert DEFAULT_BUDGET_BYTES * 4 / 3 < LAMBDA_LIMIT - 100_000
