"""``as_of`` and ``version`` of the lookup routes (``fencepost.reading.past.parse_past``): what is accepted,
and a plain reason for everything else."""

from __future__ import annotations

import pytest

from fencepost.errors import InvalidRequest
from fencepost.reading.past import Past, parse_past

NOW = 1_795_300_000.0


def test_neither_is_the_live_version() -> None:
    assert parse_past(None, None, several=False, now=NOW) is None


def test_an_instant_is_kept_as_answers_show_it() -> None:
    assert parse_past("2026-11-21T01:00:00+01:00", None, several=True, now=NOW) == Past(
        1_795_219_200.0, "2026-11-21T00:00:00Z"
    )


@pytest.mark.parametrize("version", ["3", 3])
def test_a_version_as_a_query_string_or_a_json_number(version: object) -> None:
    assert parse_past(None, version, several=False, now=NOW) == Past(version=3)


@pytest.mark.parametrize(
    ("as_of", "version", "several", "says"),
    [
        ("2026-11-21T00:00:00Z", "3", False, "not both"),
        (None, "3", True, "one dataset"),
        (None, "0", False, "1 or more"),
        (None, "-1", False, "1 or more"),
        (None, "three", False, "whole number"),
        (None, True, False, "whole number"),
        (None, "9" * 13, False, "whole number"),
        (None, "²", False, "whole number"),  # a digit to str.isdigit, not to int()
        (None, "١٢", False, "whole number"),  # Arabic-Indic digits
        (12345, None, False, "RFC 3339"),
        ("2026-11-21", None, False, "RFC 3339"),
        ("2099-01-01T00:00:00Z", None, False, "in the future"),
    ],
)
def test_anything_else_is_refused_with_a_reason(as_of: object, version: object, several: bool, says: str) -> None:
    with pytest.raises(InvalidRequest, match=says):
        parse_past(as_of, version, several=several, now=NOW)
