"""``python -m enrich`` over files of ranges: the enriched file (gzip when its name says so), the summary as JSON,
and exit status 1 with a one-line ``error:`` (no traceback) for what cannot be used."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from enrich.__main__ import main

RANGES = "1.1.1.0\t1.1.1.255\t13335\tUS\tCloudflare\n2001:db8::\t2001:db8::ffff\t64496\tZZ\tdoc\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "geo.tsv").write_text(RANGES)
    (tmp_path / "in.csv").write_text("n,ip\n1,1.1.1.1\n2,8.8.8.8\n3,2001:db8::2\n4,bogus\n")
    (tmp_path / "in.jsonl").write_text('{"ip": "1.1.1.1"}\n')
    (tmp_path / "not-ranges.tsv").write_text("start\tend\tname\n")
    return tmp_path


def test_a_csv_enriched_to_a_gzip_file_with_its_summary(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, summary = files / "out.csv.gz", files / "summary.json"
    status = main(
        [str(files / "in.csv"), "--ranges", f"geo={files / 'geo.tsv'}", "--out", str(out), "--summary", str(summary),
         "--quiet"]
    )  # fmt: skip
    assert status == 0
    assert gzip.decompress(out.read_bytes()).decode() == (
        "n,ip,geo.data.col3,geo.data.col4,geo.data.col5\n"
        "1,1.1.1.1,13335,US,Cloudflare\n"
        "2,8.8.8.8,,,\n"
        "3,2001:db8::2,64496,ZZ,doc\n"
        "4,bogus,,,\n"
    )
    written = json.loads(summary.read_text())
    assert (written["rows"], written["bad_rows"], written["versions"]) == (4, 1, {"geo": {"1": 3}})
    assert written["first_bad_rows"] == [
        {
            "line": 5,
            "reason": "'bogus' is not a valid IP address: not an IPv4 or IPv6 address (IPv4 octets are decimal "
            "without leading zeros)",
        }
    ]
    assert json.loads(capsys.readouterr().err) == written


def test_several_datasets_by_file_name_as_jsonl(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "asn.tsv").write_text("1.1.1.0\t1.1.1.127\t13335\n")
    out = files / "out.jsonl"
    ranges = ["--ranges", str(files / "geo.tsv"), "--ranges", str(files / "asn.tsv")]
    status = main([str(files / "in.jsonl"), *ranges, "--fields", "data", "--mode", "first", "--out", str(out)])
    assert status == 0
    assert json.loads(out.read_text()) == {"ip": "1.1.1.1", "first": {"data": {"col3": "13335", "col4": "US",
                                                                             "col5": "Cloudflare"}}}  # fmt: skip
    assert json.loads(capsys.readouterr().err)["versions"] == {"geo": {"1": 1}, "asn": {"1": 1}}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["missing.csv"], "error: [Errno 2] No such file or directory: '{files}/missing.csv'"),
        (["in.csv", "--dataset", "asn"], "error: no --ranges for asn"),
        (["in.csv", "--fields", "as_of"], "error: fields may not name as_of here: each row holds its own time"),
        (["in.csv", "--fields", "nosuch"], "error: unknown field 'nosuch' in fields: "),
        (["in.jsonl", "--out-format", "csv"], "error: a jsonl input is written as jsonl"),
        (["in.csv", "--column", "addr"], "error: line 1: the header has no column 'addr' (it has n, ip)"),
        (["in.csv", "--format", "alb"], "error: line 1: an ALB access log line needs at least 4 fields"),
        (["in.csv", "--as-of", "1960-01-01T00:00:00Z"], "error: as_of '1960-01-01T00:00:00Z' is before 1970"),
    ],
)
def test_what_cannot_be_used_is_one_line_on_stderr(
    files: Path, capsys: pytest.CaptureFixture[str], given: list[str], message: str
) -> None:
    out = files / "out.txt"
    status = main([str(files / given[0]), *given[1:], "--ranges", f"geo={files / 'geo.tsv'}", "--out", str(out)])
    assert status == 1
    err = capsys.readouterr().err
    assert err.startswith(message.format(files=files))
    assert err.endswith("\n"), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err


def test_ranges_a_load_would_refuse(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main([str(files / "in.csv"), "--ranges", f"geo={files / 'not-ranges.tsv'}", "--out", "-"])
    assert status == 1
    assert (
        capsys.readouterr().err == "error: the ranges of 'geo' cannot be loaded: the file has a header but no ranges\n"
    )


@pytest.mark.parametrize(
    ("options", "flag"),
    [(["--out-format", "log"], 4), (["--out-format", "log", "--gzip-level", "9"], 2), (["--out-format", "csv"], 0)],
)
def test_a_gzip_output_at_its_level(files: Path, options: list[str], flag: int) -> None:
    """A log written as a log is compressed at level 1 unless told (the gzip header's XFL: 4 fastest, 2 best, 0
    between)."""
    line = "http 2018-07-02T22:23:00.186641Z app/lb/50dc 1.1.1.1:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366"
    (files / "alb.log").write_text(f'{line} "GET http://a/ HTTP/1.1" "curl/7.46.0"\n')
    out = files / "out.gz"
    status = main(
        [str(files / "alb.log"), "--format", "alb", "--ranges", f"geo={files / 'geo.tsv'}", "--out", str(out),
         "--quiet", *options]
    )  # fmt: skip
    assert status == 0
    assert out.read_bytes()[8] == flag
    assert b"Cloudflare" in gzip.decompress(out.read_bytes())
