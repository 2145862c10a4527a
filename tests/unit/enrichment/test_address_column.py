"""The vectorized address parser agrees with ``parse_address`` on every text: the same family and value for an
address, the same reason for anything else, whatever texts share its batch."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.core.space.addresses import V4, V6, AddressError, parse_address
from fencepost.enrichment.address_column import INVALID, Addresses, parse_addresses

DIGITS = "0123456789"
HEX = "0123456789abcdefABCDEF"

octet_texts = st.one_of(
    st.integers(0, 255).map(str),
    st.integers(0, 999).map(str),
    st.text(DIGITS, min_size=0, max_size=5),  # leading zeros, empty parts, too long parts
    st.sampled_from(["00", "01", "010", "0255", "256", "300", "999", "1a", " 1", "1 ", "\0", "+1", "-1", "0x1"]),
)
dotted_texts = st.lists(octet_texts, min_size=1, max_size=6).map(".".join)
hextets = st.one_of(st.text(HEX, min_size=0, max_size=5), st.sampled_from(["0", "ffff", "FFFF", "0000", "00000"]))
ipv6_texts = st.one_of(
    st.lists(hextets, min_size=1, max_size=9).map(":".join),
    st.tuples(st.lists(hextets, max_size=4), st.lists(hextets, max_size=4)).map(
        lambda pair: ":".join(pair[0]) + "::" + ":".join(pair[1])
    ),
    st.tuples(
        st.sampled_from(["::ffff:", "::FFFF:", "::", "::fffe:", "0:0:0:0:0:ffff:", "64:ff9b::"]), dotted_texts
    ).map("".join),
)
parts = st.one_of(
    st.text(DIGITS + ".", max_size=20),
    st.text(HEX + ":.", max_size=50),
    st.sampled_from([".", ":", "::", " ", "\t", "\0", "\n", "\r", "%eth0", "/24", "é", "١", "\u2028", "\ud800"]),
    octet_texts,
)
built_texts = st.lists(st.one_of(parts, dotted_texts, ipv6_texts), max_size=6).map("".join)
any_text = st.one_of(
    st.text(max_size=60),
    st.text(st.characters(max_codepoint=127), max_size=60),
    built_texts,
    dotted_texts,
    ipv6_texts,
    st.just(""),
    st.integers(40, 300).map(lambda n: ("1." * n)[:n]),  # very long texts
    st.integers(0, 2**32 - 1).map(lambda n: f"{n >> 24}.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"),
)


def _expected(text: str) -> tuple[int, int] | str:
    try:
        return parse_address(text)
    except AddressError as error:
        return error.reason


def _got(parsed: Addresses, index: int) -> tuple[int, int] | str:
    """What ``parsed`` says of text ``index``, read from its raw arrays (the IPv6 value from its 16 stored bytes)."""
    family = int(parsed.family[index])
    v4, v6 = int(parsed.v4[index]), parsed.v6.tobytes()[16 * index : 16 * index + 16]
    if family == INVALID:
        assert (v4, v6) == (0, bytes(16))
        return parsed.errors[index]
    assert index not in parsed.errors
    if family == V4:
        assert v6 == bytes(16)
        return V4, v4
    assert family == V6
    assert v4 == 0
    return V6, int.from_bytes(v6, "big")


def _check(texts: Sequence[str]) -> None:
    parsed = parse_addresses(texts)
    assert len(parsed) == len(texts)
    assert set(parsed.errors) <= set(range(len(texts)))
    for index, text in enumerate(texts):
        assert _got(parsed, index) == _expected(text), (index, text)


@settings(max_examples=1500, deadline=None)
@given(any_text)
def test_one_text_is_read_as_parse_address_reads_it(text: str) -> None:
    _check([text])


@settings(max_examples=600, deadline=None)
@given(st.lists(any_text, max_size=40))
def test_a_batch_of_texts_is_read_text_by_text(texts: list[str]) -> None:
    _check(texts)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(dotted_texts, st.sampled_from(["1.2.3.4", "255.255.255.255", "0.0.0.0"])), max_size=20),
    st.sampled_from(["1.2.3.4\n", "\n", "a\nb", "1.2\n3.4", "é", "1.2.3.é", "١.2.3.4", "\ud800", "\0", "1.2.3.4\0"]),
    st.integers(0, 20),
)
def test_an_odd_neighbour_does_not_disturb_the_dotted_texts(texts: list[str], odd: str, at: int) -> None:
    _check([*texts[:at], odd, *texts[at:]])


def test_known_texts() -> None:
    texts = ["1.2.3.4", "", "01.2.3.4", "1.2.3.4\n", "::ffff:1.2.3.4", "2001:db8::", "::", "256.1.1.1", "1.2.3"]
    parsed = parse_addresses(texts)
    assert parsed.family.tolist() == [V4, INVALID, INVALID, INVALID, V4, V6, V6, INVALID, INVALID]
    assert parsed.v4.tolist()[:5] == [0x01020304, 0, 0, 0, 0x01020304]
    assert parsed.v6.tobytes()[80:96] == bytes.fromhex("20010db8") + bytes(12)
    assert parsed.v6.tobytes()[96:112] == bytes(16)
    assert parsed.errors[1] == "the address is empty"
    assert parsed.errors[3] == "an IP address holds only ASCII letters, digits, '.' and ':'"
    assert sorted(parsed.errors) == [1, 2, 3, 7, 8]


@pytest.mark.parametrize("count", [0, 1, 7, 5000])
def test_large_batches_of_dotted_quads(count: int) -> None:
    texts = [f"{n % 256}.{(n * 7) % 256}.{(n * 13) % 256}.{(n * 31) % 256}" for n in range(count)]
    parsed = parse_addresses(texts)
    expected = [
        ((n % 256) << 24) | (((n * 7) % 256) << 16) | (((n * 13) % 256) << 8) | ((n * 31) % 256) for n in range(count)
    ]
    assert parsed.v4.tolist() == expected
    assert parsed.family.tolist() == [V4] * count
    assert parsed.errors == {}
