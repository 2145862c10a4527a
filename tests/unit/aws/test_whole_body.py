"""A body cut short (fewer bytes than its ``Content-Length``) raises at every kind of read, bounded ones included,
instead of being read as whole (``fencepost.aws.whole_body.WholeBody``)."""

from __future__ import annotations

import io

import pytest
from botocore.exceptions import IncompleteReadError
from botocore.response import StreamingBody

from fencepost.aws.whole_body import WholeBody

DATA = b"1.0.0.0\t1.0.0.255\tAU\n" * 100


def _body(sent: bytes, promised: int) -> StreamingBody:
    return StreamingBody(io.BytesIO(sent), promised)


@pytest.mark.parametrize("size", [None, 10, 100, len(DATA) - 1, len(DATA) + 1, 1 << 20])
def test_a_cut_body_raises_whatever_the_read_s_bound(size: int | None) -> None:
    body = WholeBody(_body(DATA[:-7], len(DATA)))

    def read_all() -> None:
        while body.read(size):
            pass

    with pytest.raises(IncompleteReadError):
        read_all()


def test_a_bounded_read_of_a_cut_body_would_pass_unnoticed_without_it() -> None:
    assert _body(DATA[:-7], len(DATA)).read(len(DATA) + 1) == DATA[:-7]


@pytest.mark.parametrize("size", [None, 1, 10, len(DATA), len(DATA) + 1])
def test_a_whole_body_reads_to_its_end_unchanged(size: int | None) -> None:
    body, parts = WholeBody(_body(DATA, len(DATA))), []
    while part := body.read(size):
        parts.append(part)
        if size is None:
            break
    assert b"".join(parts) == DATA
