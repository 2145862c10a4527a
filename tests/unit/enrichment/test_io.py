"""What a job reads and writes (``enrichment.inputs``, ``enrichment.outputs`` through ``enrichment.job.Job``), over
a dataset built from a small file of ranges: every input line kept as it was, in order, the answers appended; bad
rows kept and counted; cells a spreadsheet would run written as text."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from fencepost.core.logs.alb import NAMES as ALB_NAMES
from fencepost.enrichment.sources import FileSource
from tests.support import ROOT
from tests.support.enrichment import LAN, RANGES, TEN, enrich, ranges_source

FORMULAS = '1.1.1.0\t1.1.1.255\t=HYPERLINK("x")\t-42\t@SUM(A1)\n10.0.0.0\t10.255.255.255\t+1 555\t-1.5e3\t-x\n'
CLOUDFLARE = ["13335", "US", 'Cloudflare, "Inc."']
COLUMNS = "geo.data.col3,geo.data.col4,geo.data.col5"
ALB_LOG = ROOT / "tests" / "data" / "aws_logs" / "alb.log"
NOT_AN_ADDRESS = "not an IPv4 or IPv6 address (IPv4 octets are decimal without leading zeros)"


@pytest.fixture(scope="module")
def geo(tmp_path_factory: pytest.TempPathFactory) -> FileSource:
    return ranges_source(tmp_path_factory.mktemp("geo"), RANGES)


CSV_IN = 'name,addr,note\n"Smith, J",1.1.1.7,"said ""hi"", left"\nx,10.2.3.4,\ny,8.8.8.8,z\n'
CSV_OUT = (
    f"name,addr,note,{COLUMNS}\n"
    '"Smith, J",1.1.1.7,"said ""hi"", left",13335,US,"Cloudflare, ""Inc."""\n'
    "x,10.2.3.4,,64512,XX,private ten\n"
    "y,8.8.8.8,z,,,\n"
)


@pytest.mark.parametrize("column", ["addr", "2"])
def test_csv_by_a_named_or_numbered_column(geo: FileSource, column: str) -> None:
    written, summary = enrich(geo, "csv", CSV_IN, column=column)
    assert written == CSV_OUT
    assert (summary.rows, summary.bad, summary.versions) == (3, 0, {"geo": {1: 3}})


def test_tsv(geo: FileSource) -> None:
    text = 'name\tip\tnote\n"a, b"\t1.1.1.7\tq "x"\nc\t2001:db8::9\t\n'
    written, summary = enrich(geo, "tsv", text, "tsv")
    assert written.split("\n") == [
        "name\tip\tnote\t" + COLUMNS.replace(",", "\t"),
        '"a, b"\t1.1.1.7\tq "x"\t13335\tUS\tCloudflare, "Inc."',
        "c\t2001:db8::9\t\t64496\tZZ\tdoc",
        "",
    ]
    assert summary.bad == 0


def test_csv_without_a_header(geo: FileSource) -> None:
    written, summary = enrich(geo, "csv", CSV_IN.split("\n", 1)[1], column="2", header=False)
    assert written == CSV_OUT.split("\n", 1)[1]
    assert summary.rows == 3


def test_one_address_a_line(geo: FileSource) -> None:
    text = '1.1.1.1\n\n  10.0.0.1 \nbad\n"q,\n2001:db8::5\n8.8.8.8\n1.2.3.4,5\n'
    written, summary = enrich(geo, "lines", text)
    assert list(csv.reader(io.StringIO(written))) == [
        ["ip", *COLUMNS.split(",")],
        ["1.1.1.1", *CLOUDFLARE],
        ["", "", "", ""],
        ["  10.0.0.1 ", *TEN],
        ["bad", "", "", ""],
        ['"q,', "", "", ""],
        ["2001:db8::5", "64496", "ZZ", "doc"],
        ["8.8.8.8", "", "", ""],
        ["1.2.3.4,5", "", "", ""],
    ]
    assert written.split("\n")[5:6] == ['"""q,",,,']
    assert summary.rows == 8
    assert summary.first_bad == [
        {"line": 2, "reason": "the row has no address"},
        {"line": 4, "reason": f"'bad' is not a valid IP address: {NOT_AN_ADDRESS}"},
        {"line": 5, "reason": f"'\"q,' is not a valid IP address: {NOT_AN_ADDRESS}"},
        {"line": 8, "reason": f"'1.2.3.4,5' is not a valid IP address: {NOT_AN_ADDRESS}"},
    ]


def test_only_the_first_bad_rows_are_listed(geo: FileSource) -> None:
    text = "".join("1.1.1.1\n" if n % 3 == 0 else f"x{n}\n" for n in range(60))
    written, summary = enrich(geo, "lines", text)
    assert (summary.rows, summary.bad) == (60, 40)
    assert [bad["line"] for bad in summary.first_bad] == [n + 1 for n in range(60) if n % 3][:20]
    assert summary.first_bad[0]["reason"] == f"'x1' is not a valid IP address: {NOT_AN_ADDRESS}"
    assert len(written.split("\n")) == 62  # header, 60 rows, and the last newline


def test_jsonl_by_a_field_path(geo: FileSource) -> None:
    lines = [
        '{"a": {"ip": "1.1.1.1"}, "b": [1], "c": null}',
        '{"a": {"ip": "10.9.9.9", "n": 2}}',
        "not json",
        "[1, 2]",
        '{"a": 1}',
        '{"a": {"ip": "8.8.8.8"}}',
    ]
    written, summary = enrich(geo, "jsonl", "\n".join(lines) + "\n", "jsonl", column="a.ip")
    out = written.split("\n")
    assert len(out) == 7
    assert out[6] == ""
    assert json.loads(out[0]) == {
        "a": {"ip": "1.1.1.1"},
        "b": [1],
        "c": None,
        "geo": {"data": dict(zip(["col3", "col4", "col5"], CLOUDFLARE, strict=True))},
    }
    assert json.loads(out[1]) == {
        "a": {"ip": "10.9.9.9", "n": 2},
        "geo": {"data": dict(zip(["col3", "col4", "col5"], TEN, strict=True))},
    }
    assert out[2:5] == lines[2:5]  # kept as they were
    assert json.loads(out[5]) == {
        "a": {"ip": "8.8.8.8"},
        "geo": {"error": {"code": "NOT_FOUND", "message": "no range of dataset 'geo' contains 8.8.8.8"}},
    }
    assert [bad["line"] for bad in summary.first_bad] == [3, 4, 5]
    assert summary.first_bad[1]["reason"] == "not a JSON object"
    assert summary.first_bad[0]["reason"].startswith("not JSON: ")


def _alb_lines() -> list[str]:
    lines = ALB_LOG.read_text().splitlines()
    return [*lines, lines[0] + ' TID host /uri "-" "extra one" two']  # 4 fields AWS names, then 2 it does not


def test_an_alb_log_as_csv(geo: FileSource) -> None:
    lines = _alb_lines()
    written, summary = enrich(geo, "alb", "\n".join(lines) + "\n")
    rows = list(csv.reader(io.StringIO(written)))
    assert rows[0] == [*ALB_NAMES, *COLUMNS.split(",")]
    assert len(rows) == 1 + len(lines) == 9
    width = len(ALB_NAMES)
    for row in rows[1:]:
        assert row[3] in ("192.168.131.39:2817", "10.0.1.252:48160", "10.0.0.140:40914", "10.0.0.140:44244")
        assert row[width : width + 3] == (LAN if row[3].startswith("192.168.") else TEN)
    first = rows[1]
    assert first[:5] == ["http", "2018-07-02T22:23:00.186641Z", "app/my-loadbalancer/50dc6c495c0c9188",
                         "192.168.131.39:2817", "10.0.0.1:80"]  # fmt: skip
    assert (first[12], first[13], first[26]) == ("GET http://www.example.com:80/ HTTP/1.1", "curl/7.46.0", "200")
    assert first[29:width] == ["", "", "", ""]  # names the line has no field for
    assert rows[2][22] == "authenticate,forward"
    assert rows[-1] == [*first[:29], "TID", "host", "/uri", "-", *LAN, "extra one", "two"]  # extra after answers
    assert (summary.rows, summary.bad) == (8, 0)


def test_an_alb_log_as_jsonl(geo: FileSource) -> None:
    lines = _alb_lines()
    written, summary = enrich(geo, "alb", "\n".join(lines) + "\n", "jsonl")
    objects = [json.loads(line) for line in written.splitlines()]
    assert len(objects) == 8
    first = objects[0]
    assert list(first) == [*ALB_NAMES[:29], "geo"]
    assert first["client:port"] == "192.168.131.39:2817"
    assert first["request"] == "GET http://www.example.com:80/ HTTP/1.1"
    assert first["geo"] == {"data": dict(zip(["col3", "col4", "col5"], LAN, strict=True))}
    assert objects[2]["geo"]["data"]["col5"] == "private ten"
    last = objects[-1]
    assert list(last)[29:] == [*ALB_NAMES[29:], "field_34", "field_35", "geo"]
    assert [last[name] for name in ALB_NAMES[29:]] == ["TID", "host", "/uri", "-"]
    assert (last["field_34"], last["field_35"]) == ("extra one", "two")
    assert {k: v for k, v in last.items() if k in first} == first
    assert summary.bad == 0


@pytest.mark.parametrize(
    ("out", "raw", "expected"),
    [
        ("csv", False, ['1.1.1.9,"\'=HYPERLINK(""x"")",-42,\'@SUM(A1)', "10.0.0.9,'+1 555,-1.5e3,'-x"]),
        ("csv", True, ['1.1.1.9,"=HYPERLINK(""x"")",-42,@SUM(A1)', "10.0.0.9,+1 555,-1.5e3,-x"]),
        ("tsv", False, ["1.1.1.9\t'=HYPERLINK(\"x\")\t-42\t'@SUM(A1)", "10.0.0.9\t'+1 555\t-1.5e3\t'-x"]),
        ("tsv", True, ['1.1.1.9\t=HYPERLINK("x")\t-42\t@SUM(A1)', "10.0.0.9\t+1 555\t-1.5e3\t-x"]),
    ],
)
def test_cells_a_spreadsheet_would_run(tmp_path: Path, out: str, raw: bool, expected: list[str]) -> None:
    source = ranges_source(tmp_path, FORMULAS)
    written, _ = enrich(source, "lines", "1.1.1.9\n10.0.0.9\n", out, raw=raw)
    assert written.split("\n")[1:] == [*expected, ""]
