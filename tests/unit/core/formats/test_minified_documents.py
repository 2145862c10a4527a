"""A minified JSON document is one line: the line splitter lets an object that opens a JSON object hold lines as
long as a document may be (``MAX_DOCUMENT_BYTES``), and no longer; every other object keeps ``MAX_LINE_BYTES``, and
an object that opens a JSON object but is read by lines (DROP JSON) is held to it by the format's chooser."""

from __future__ import annotations

import gzip
import io

import pytest

from fencepost.core.folders.limits import Limits
from fencepost.core.formats.base import FileError, Layout, ReadOptions
from fencepost.core.formats.lines import object_lines, opens_document, split_lines
from tests.support.documents import minified
from tests.support.formats import read_sample
from tests.support.published import AWS

SMALL = Limits(max_line_bytes=1024, max_document_bytes=64 << 10)  # a line of 1 KB, a document of 64 KB


def _split(data: bytes, limits: Limits, size: int = 4096) -> list[bytes]:
    return list(split_lines(io.BytesIO(data).read, limits, size))


def test_a_minified_document_longer_than_a_line_is_one_line() -> None:
    data = minified(100)  # about 10 KB: nine times the line limit and more
    assert len(data) > 9 * SMALL.max_line_bytes
    assert _split(data, SMALL) == [data]
    assert (
        _split(b"\n  \r\n\xef\xbb\xbf" + data + b"\n", SMALL, 3)[-1] == b"\xef\xbb\xbf" + data + b"\n"
    )  # blanks first
    gzipped = gzip.compress(data)
    assert list(object_lines(io.BytesIO(gzipped), SMALL)) == [data]


def test_a_minified_document_over_the_document_limit_is_refused_saying_so() -> None:
    data = minified(1000)  # about 100 KB
    assert len(data) > SMALL.max_document_bytes
    with pytest.raises(FileError) as refused:
        _split(data, SMALL)
    assert refused.value.line == 1
    assert refused.value.reason == "a JSON document larger than 65,536 bytes (MAX_DOCUMENT_BYTES) is not read"


@pytest.mark.parametrize(
    "data",
    [
        b"1.0.0.0/24," + b"x" * 5000,  # a row, one long line
        b"# a comment\n" + b"{" * 5000,  # the object opens with a comment, not a JSON object
        b"[" + b'"1.0.0.0/24",' * 500 + b"]",  # a JSON list is no document
    ],
    ids=["csv", "after-a-comment", "json-list"],
)
def test_a_long_line_of_any_other_object_is_refused_by_the_line_limit(data: bytes) -> None:
    with pytest.raises(FileError) as refused:
        _split(data, SMALL, 512)
    assert "the line is longer than 1,024 bytes (MAX_LINE_BYTES)" in refused.value.reason


def test_a_document_limit_below_the_line_limit_leaves_the_line_limit() -> None:
    limits = Limits(max_line_bytes=4096, max_document_bytes=1024)
    assert limits.line_ceiling(document=True) == 4096
    with pytest.raises(FileError, match=r"longer than 4,096 bytes \(MAX_LINE_BYTES\)"):
        _split(minified(100), limits)


def test_an_object_opens_a_document_by_its_first_byte_that_is_not_blank() -> None:
    assert [opens_document(data) for data in (b"", b" \r\n", b'\n {"a"', b"\xef\xbb\xbf{", b"#{", b"[{")] == [
        None,
        None,
        True,
        True,
        False,
        False,
    ]


def test_a_line_format_opened_like_a_document_is_held_to_the_line_limit() -> None:
    # DROP JSON is a JSON object a line: the splitter let its long line by, the format's chooser refuses it
    short = '{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}\n'
    long = '{"cidr":"1.10.16.0/20","sblid":"' + "S" * 2000 + '","rir":"apnic"}\n'
    options = ReadOptions(reader_limits=SMALL)
    assert read_sample(short + short, options)[0].layout is Layout.DROP_JSON
    with pytest.raises(FileError) as refused:
        read_sample("\n" + short + long, options)
    assert (refused.value.line, refused.value.reason[:46]) == (3, "the line is longer than 1,024 bytes (MAX_LINE_")
    with pytest.raises(FileError, match=r"^line 2: the line is longer than 1,024 bytes"):  # a header forced
        read_sample("\n{" + "x" * 2000 + "\n", ReadOptions(header=True, reader_limits=SMALL))
    # A document read whole is held to its own bound, not the line's
    assert read_sample(minified(100).decode(), options)[0].rows == 100
    assert read_sample(AWS, options)[0].layout is Layout.AWS
