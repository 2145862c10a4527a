"""Hypothesis building blocks shared by the property tests: ranges drawn in relation to earlier ones."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from fencepost.core.space.addresses import TOP

RELATIONS = ("duplicate", "nested", "overlap", "beside")


def related_span(
    draw: st.DrawFn, kind: str, family: int, span: tuple[int, int], steps: Sequence[int]
) -> tuple[int, int]:
    """A range of ``family`` that repeats ``low..high``, is nested in it, overlaps its end, or lies beside it
    (``steps`` apart; 0: touching)."""
    low, high = span
    step = draw(st.sampled_from(list(steps)))
    if kind == "duplicate":
        return low, high
    if kind == "nested":
        start = draw(st.integers(low, high))
        return start, draw(st.integers(start, high))
    if kind == "overlap":
        return draw(st.integers(low, high)), min(TOP[family], high + step + 1)
    if high + step < TOP[family]:  # beside, after it
        start = high + step + 1
        return start, min(TOP[family], start + draw(st.sampled_from([0, 1, 2**20])))
    end = max(0, low - step - 1)  # beside, before it
    return max(0, end - draw(st.sampled_from([0, 1, 2**20]))), end
