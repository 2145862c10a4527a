"""An ALB log written as a log, read as bytes (``enrichment.log_bytes``): the bytes written and the summary are the
text path's (``Job(lean=False)``) for AWS's sample lines and for the lines it leaves to the reader: IPv6 clients with
and without brackets, ``-``, malformed lines, CRLF endings, a last line with no line break, gzip input."""

from __future__ import annotations

import gzip
import io

import pytest

from fencepost.enrichment import log_bytes
from fencepost.enrichment.engine import Enricher
from fencepost.enrichment.inputs import Reader
from fencepost.enrichment.job import Job, Summary
from fencepost.enrichment.outputs import Writer
from fencepost.enrichment.resolving import Resolver
from fencepost.enrichment.shape import Shape, parse_fields
from fencepost.enrichment.sources import FileSource
from fencepost.reading.answers import Mode
from tests.support import ROOT
from tests.support.enrichment import RANGES, ranges_source

SAMPLES = (ROOT / "tests" / "data" / "aws_logs" / "alb.log").read_bytes().splitlines()
CLIENT = b"192.168.131.39:2817"
FIRST = SAMPLES[0]
READ_AT_ONCE = [  # client fields the batch reads itself
    FIRST.replace(CLIENT, b"2001:db8::7:2817"),
    FIRST.replace(CLIENT, b"[2001:db8::7]:2817"),
    FIRST.replace(CLIENT, b"-"),
    FIRST.replace(CLIENT, b"::ffff:1.1.1.1:443"),
    FIRST.replace(CLIENT, b"2001:db8:0:0:0:0:ffff:ffff:65535"),
    FIRST.replace(CLIENT, b"1.1.1.256:80"),  # no address: a bad row, with the text path's reason
    FIRST.replace(CLIENT, b"[]:1"),
    FIRST.replace(b"app/my-loadbalancer", b"app/" + b"x" * 100),  # past the first heads searched
]
LEFT_TO_THE_READER = [
    b"",
    b"x",
    b"http 2018-07-02T22:23:00.186641Z app/lb",
    FIRST.replace(CLIENT, b"1.1.1.1:"),
    FIRST.replace(CLIENT, b"1.1.1.1:http"),
    FIRST.replace(CLIENT, b"1.1.1.1:1234567"),
    FIRST.replace(CLIENT, b"1.1.1.1"),
    FIRST.replace(b" ", b"\t", 2),
    FIRST.replace(b" ", b"  ", 1),
    b" " + FIRST,
    FIRST.replace(b"my-loadbalancer", "my-\u00e9lb".encode()),
    FIRST.replace(b"my-loadbalancer", "my\u2003lb".encode()),  # a space to str.split, not to bytes
    FIRST.replace(b"my-loadbalancer", b"my\x1clb"),
    FIRST.replace(b"my-loadbalancer", b'my"lb'),
    FIRST.replace(b"my-loadbalancer", b"my!lb"),
    FIRST.replace(CLIENT, b"\xff\xfe:80"),
    b"\xff" + FIRST,
]


@pytest.fixture(scope="module")
def geo(tmp_path_factory: pytest.TempPathFactory) -> FileSource:
    return ranges_source(tmp_path_factory.mktemp("geo"), RANGES)


def _run(source: FileSource, data: bytes, *, lean: bool, batch_rows: int = 65_536) -> tuple[bytes, Summary]:
    reader = Reader("alb")
    shape = Shape(("geo",), Mode.ALL, parse_fields(None), {"geo": ("col3", "col4", "col5")})
    writer = Writer("log", reader, shape.columns())
    enricher = Enricher(shape, [Resolver("geo", source)], errors_shown=False)
    job = Job(reader, writer, enricher, lean=lean, batch_rows=batch_rows)
    assert log_bytes.applies(reader, writer)
    written: list[bytes] = []
    summary = job.run(io.BytesIO(data), "alb.log", written.append)
    return b"".join(written), summary


def _same(source: FileSource, data: bytes, batch_rows: int = 65_536) -> bytes:
    fast, fast_summary = _run(source, data, lean=True, batch_rows=batch_rows)
    text, text_summary = _run(source, data, lean=False)
    assert fast == text
    fields = ("rows", "lines", "bad", "first_bad", "versions", "no_version", "bytes_in", "bytes_out")
    assert [getattr(fast_summary, name) for name in fields] == [getattr(text_summary, name) for name in fields]
    return fast


@pytest.mark.parametrize("batch_rows", [65_536, 3])
def test_every_kind_of_line_is_written_as_the_text_path_writes_it(geo: FileSource, batch_rows: int) -> None:
    lines = [*SAMPLES, *READ_AT_ONCE, *LEFT_TO_THE_READER, *SAMPLES]
    written = _same(geo, b"\n".join(lines) + b"\n", batch_rows)
    assert written.count(b"\n") == len(lines)
    assert written.splitlines()[0].startswith(FIRST + b" ")


def test_crlf_lines_and_a_last_line_with_no_line_break(geo: FileSource) -> None:
    lines = [*SAMPLES, *READ_AT_ONCE, *LEFT_TO_THE_READER]
    written = _same(geo, b"\r\n".join(lines) + b"\r\n" + FIRST)
    assert b"\r" not in written
    _same(geo, b"\n".join(SAMPLES) + b"\r\n" + b"\r\n".join(READ_AT_ONCE) + b"\r")


def test_gzip_input(geo: FileSource) -> None:
    body = gzip.compress(b"\n".join([*SAMPLES, *READ_AT_ONCE, *LEFT_TO_THE_READER] * 50) + b"\n")
    _same(geo, body)


def test_the_batch_reads_its_clients_and_leaves_only_the_others_to_the_reader() -> None:
    lines = [*SAMPLES, *READ_AT_ONCE, *LEFT_TO_THE_READER]
    texts, others = log_bytes.addresses(lines, 3)
    start = len(SAMPLES) + len(READ_AT_ONCE)
    assert others.tolist() == list(range(start, len(lines)))
    expected = [line.split(b" ")[3].decode().rpartition(":")[0].strip("[]") for line in lines[:start]]
    assert texts[:start] == expected


def test_a_log_read_for_its_times_or_written_as_csv_keeps_the_text_path() -> None:
    reader, timed = Reader("alb"), Reader("alb", time="log")
    shape = Shape(("geo",), Mode.ALL, parse_fields(None), {"geo": ("col3",)})
    assert not log_bytes.applies(reader, Writer("csv", reader, shape.columns()))
    assert not log_bytes.applies(timed, Writer("log", timed, shape.columns()))
    cloudfront = Reader("cloudfront")
    assert not log_bytes.applies(cloudfront, Writer("log", cloudfront, shape.columns()))
