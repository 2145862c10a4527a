"""The batch loop (``enrichment.job.Job``): gzip known by its bytes, CRLF read as LF wherever the blocks are cut,
rows written in input order across batches, a file that is not what it was said to be refused by line, and rows
answered as of their own time."""

from __future__ import annotations

import gzip
import io
from collections.abc import Callable
from typing import Any

import pytest

from fencepost.enrichment import input_lines
from fencepost.enrichment.engine import Enricher
from fencepost.enrichment.input_lines import JobError
from fencepost.enrichment.inputs import Reader
from fencepost.enrichment.job import Job, Summary
from fencepost.enrichment.outputs import Writer
from fencepost.enrichment.resolving import Resolver
from fencepost.enrichment.shape import Shape, parse_fields
from fencepost.enrichment.sources import FileSource
from fencepost.reading.answers import Mode
from tests.support import ROOT

RANGES = (
    "1.1.1.0\t1.1.1.255\t13335\tUS\tCloudflare\n"
    "10.0.0.0\t10.255.255.255\t64512\tXX\tprivate ten\n"
    "192.168.0.0\t192.168.255.255\t64513\tXX\tprivate lan\n"
    "2001:db8::\t2001:db8::ffff\t64496\tZZ\tdoc\n"
)
CLOUDFLARE, TEN, LAN, DOC = "13335,US,Cloudflare", "64512,XX,private ten", "64513,XX,private lan", "64496,ZZ,doc"
NONE = ",,"
HEADER = "n,ip,geo.data.col3,geo.data.col4,geo.data.col5\n"


@pytest.fixture(scope="module")
def geo(tmp_path_factory: pytest.TempPathFactory) -> FileSource:
    path = tmp_path_factory.mktemp("geo") / "geo.tsv"
    path.write_text(RANGES)
    return FileSource("geo", [path])


def enrich(
    source: FileSource, form: str, data: bytes, *, name: str = "input", batch_rows: int = 65_536, **reading: Any
) -> tuple[str, Summary]:
    reader = Reader(form, **reading)
    shape = Shape(("geo",), Mode.ALL, parse_fields(None), {"geo": ("col3", "col4", "col5")})
    writer = Writer("csv", reader, shape.columns())
    job = Job(reader, writer, Enricher(shape, [Resolver("geo", source)], errors_shown=False), batch_rows=batch_rows)
    written: list[bytes] = []
    summary = job.run(io.BytesIO(data), name, written.append)
    return b"".join(written).decode(), summary


PLAIN = b"n,ip\n1,1.1.1.1\n2,10.0.0.1\n3,nope\n4,2001:db8::1\n"
PLAIN_OUT = HEADER + f"1,1.1.1.1,{CLOUDFLARE}\n2,10.0.0.1,{TEN}\n3,nope,{NONE}\n4,2001:db8::1,{DOC}\n"


def test_gzip_is_known_by_its_bytes_not_its_name(geo: FileSource) -> None:
    body = gzip.compress(PLAIN)
    written, summary = enrich(geo, "csv", body, name="addresses.csv")
    assert written == PLAIN_OUT
    assert (summary.rows, summary.bad, summary.bytes_in) == (4, 1, len(body))


def test_a_file_named_gz_that_is_not_gzip(geo: FileSource) -> None:
    with pytest.raises(JobError, match=r"^addresses\.csv\.gz is named \.gz but is not gzip \(it starts with b'n,'\)$"):
        enrich(geo, "csv", PLAIN, name="addresses.csv.gz")


@pytest.mark.parametrize("cut", [10, 30])
def test_a_gzip_cut_short(geo: FileSource, cut: int) -> None:
    body = gzip.compress(PLAIN * 50)
    with pytest.raises(JobError, match=r"^in\.gz: the gzip stream is broken or cut short"):
        enrich(geo, "csv", body[: len(body) - cut], name="in.gz")


@pytest.mark.parametrize("block", [5, 7, 8, 9, 10, 16, 4 << 20])
@pytest.mark.parametrize("last_newline", [True, False])
def test_crlf_reads_as_lf_wherever_blocks_are_cut(
    geo: FileSource, monkeypatch: pytest.MonkeyPatch, block: int, last_newline: bool
) -> None:
    monkeypatch.setattr(input_lines, "BLOCK_CHARS", block)
    text = PLAIN if last_newline else PLAIN[:-1]
    lf, _ = enrich(geo, "csv", text)
    crlf, summary = enrich(geo, "csv", text.replace(b"\n", b"\r\n"))
    assert lf == crlf == PLAIN_OUT
    assert summary.bad == 1


def test_a_layout_that_does_not_fit(geo: FileSource) -> None:
    with pytest.raises(JobError, match=r"^line 1: an ALB access log line needs at least 4 fields") as raised:
        enrich(geo, "alb", PLAIN)
    assert "(no row of the first 5 is alb)" in str(raised.value)


def _many(count: int) -> tuple[bytes, str]:
    """``count`` rows of addresses in each range, outside them, invalid and IPv6, and the output expected."""
    cases: list[tuple[Callable[[int], str], str]] = [
        (lambda n: f"1.1.1.{n % 256}", CLOUDFLARE),
        (lambda n: f"10.{n % 256}.{n // 256}.7", TEN),
        (lambda n: f"8.8.{n % 256}.8", NONE),
        (lambda n: f"2001:db8::{n:x}", DOC),
        (lambda n: f"192.168.0.{n % 7}", LAN),
        (lambda n: f"x{n}", NONE),
        (lambda n: f"2001:db8:1::{n:x}", NONE),
    ]
    rows = [(n, *cases[(n * 5) % len(cases)]) for n in range(count)]
    data = "n,ip\n" + "".join(f"{n},{make(n)}\n" for n, make, _ in rows)
    out = HEADER + "".join(f"{n},{make(n)},{cells}\n" for n, make, cells in rows)
    return data.encode(), out


@pytest.mark.parametrize("batch_rows", [1, 7, 100, 65_536])
def test_rows_are_written_in_order_across_batches(geo: FileSource, batch_rows: int) -> None:
    data, expected = _many(103)
    written, summary = enrich(geo, "csv", data, batch_rows=batch_rows)
    assert written == expected
    assert (summary.rows, summary.bad) == (103, len([n for n in range(103) if (n * 5) % 7 == 5]))
    assert summary.versions == {"geo": {1: 103 - summary.bad}}


TIMED = [
    ("2020-01-01T00:00:00Z", "1.1.1.1", CLOUDFLARE),
    ("2020-01-01T00:00:00+02:00", "1.1.1.2", CLOUDFLARE),
    ("2020-01-01 12:00:00", "10.0.0.1", TEN),
    ("1600000000", "1.1.1.3", CLOUDFLARE),
    ("1600000000.5", "192.168.1.1", LAN),
    ("1600000000000", "10.0.0.2", TEN),
    ("0", "2001:db8::1", DOC),
    ("yesterday", "1.1.1.4", NONE),
    ("", "1.1.1.5", NONE),
    ("nan", "1.1.1.6", NONE),
    ("-5", "1.1.1.7", NONE),  # before 1970: no version then
    ("1600000000", "nope", NONE),
]


def test_rows_as_of_their_own_time(geo: FileSource) -> None:
    data = "when,ip\n" + "".join(f"{when},{ip}\n" for when, ip, _ in TIMED)
    written, summary = enrich(geo, "csv", data.encode(), time="when")
    expected = "".join(f"{when},{ip},{cells}\n" for when, ip, cells in TIMED)
    assert written == "when,ip,geo.data.col3,geo.data.col4,geo.data.col5\n" + expected
    assert summary.first_bad == [
        {"line": 9, "reason": "the row's time cannot be read: Invalid isoformat string: 'yesterday'"},
        {"line": 10, "reason": "the row's time cannot be read: Invalid isoformat string: ''"},
        {"line": 11, "reason": "the row's time cannot be read: 'nan' is not a time"},
        {"line": 13, "reason": "'nope' is not a valid IP address: not an IPv4 or IPv6 address (IPv4 octets are "
         "decimal without leading zeros)"},
    ]  # fmt: skip
    assert summary.versions == {"geo": {1: 7}}
    assert summary.no_version == {"geo": 1}


def test_a_log_as_of_its_own_time(geo: FileSource) -> None:
    data = (ROOT / "tests" / "data" / "aws_logs" / "alb.log").read_bytes()
    written, summary = enrich(geo, "alb", data, time="log")
    answers = [line.rsplit(",", 3)[1:] for line in written.splitlines()[1:]]
    assert answers == [LAN.split(",")] * 2 + [TEN.split(",")] * 3 + [LAN.split(",")] * 2
    assert (summary.rows, summary.bad, summary.versions) == (7, 0, {"geo": {1: 7}})
