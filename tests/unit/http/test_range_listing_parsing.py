"""Range listing's request values: ``within`` networks, ``limit``, and cursors (round trip, tampering refused)."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fencepost.core.space.addresses import TOP, V4, V6
from fencepost.http.paging import (
    EVERYTHING,
    Cursor,
    ListingError,
    Span,
    parse_cursor,
    parse_limit,
    parse_within,
)


def test_within_is_a_strict_cidr_network() -> None:
    assert parse_within(None) == EVERYTHING
    assert parse_within("1.0.0.0/16").spans == (Span(V4, 0x01000000, 0x0100FFFF),)
    assert parse_within("2001:db8::/32").text == "2001:db8::/32"
    assert parse_within("::ffff:1.2.0.0/112").spans == (Span(V4, 0x01020000, 0x0102FFFF),)
    assert parse_within("0.0.0.0/0").spans == (Span(V4, 0, TOP[V4]),)
    for bad in ["1.0.0.1/16", "1.0.0.0", "1.0.0.0/33", "01.0.0.0/8", "1.0.0.0/08", "fe80::%1/64", " 1.0.0.0/8", "x/8"]:
        with pytest.raises(ListingError):
            parse_within(bad)


def test_limit_is_one_to_a_thousand() -> None:
    assert parse_limit(None) == 100
    assert parse_limit("1000") == 1000
    for bad in ["0", "1001", "-1", "01", "1e3", "", "99999"]:
        with pytest.raises(ListingError):
            parse_limit(bad)


@given(
    version=st.integers(1, 2**53 - 1),
    family=st.sampled_from([V4, V6]),
    after=st.none() | st.integers(0, TOP[V4] - 1),
    name=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", fullmatch=True),
)
def test_cursors_round_trip(version: int, family: int, after: int | None, name: str) -> None:
    cursor = Cursor(name, version, family, after)
    assert len(cursor.token()) <= 200
    assert parse_cursor(cursor.token(), name, EVERYTHING) == cursor


def test_tampered_or_foreign_cursors_are_refused() -> None:
    token = Cursor("geo", 3, V4, 0x01000000).token()
    body, check = token.split(".")
    forged = base64.urlsafe_b64encode(b'["geo",4,4,"1000000"]').rstrip(b"=").decode()
    for bad in [token[:-1] + ("0" if token[-1] != "0" else "1"), forged + "." + check, body, "", "a.b", token + "x"]:
        with pytest.raises(ListingError):
            parse_cursor(bad, "geo", EVERYTHING)
    with pytest.raises(ListingError, match="dataset"):
        parse_cursor(token, "other", EVERYTHING)
    with pytest.raises(ListingError, match="within"):
        parse_cursor(Cursor("geo", 3, V6, None).token(), "geo", parse_within("1.0.0.0/8"))
    with pytest.raises(ListingError):  # past the end of the requested network
        parse_cursor(Cursor("geo", 3, V4, 0x02000000).token(), "geo", parse_within("1.0.0.0/8"))
