"""``python -m sql --ranges``: the query mode answers each address (IPv4, IPv6, IPv4-mapped, a miss) as the
enrichment engine does, live and as of a row's time; a bad query is one line and exit status 1; datasets' names are
made SQL names; the next session reads the tables the first one wrote."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from sql.__main__ import main
from sql.naming import sql_names
from tests.support.tables import build_version, engine_answers

ROWS = [
    ["1.0.0.0", "1.0.255.255", "AU", "13335"],
    ["1.0.32.0", "1.0.63.255", "CN", "4134"],
    ["8.8.8.0", "8.8.8.255", "US", "15169"],
    ["2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "ZZ", "64496"],
    ["2400:cb00::", "2400:cb00:ffff::", "AU", "13335"],
]
ADDRESSES = ["1.0.64.1", "1.0.40.7", "8.8.8.8", "2001:db8::42", "2400:cb00:1::1", "::ffff:1.0.33.1", "9.9.9.9", "-"]


def _query(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--cache", str(tmp_path / "cache"), "--format", "csv", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _addresses(tmp_path: Path) -> Path:
    path = tmp_path / "requests.csv"
    path.write_text("n,time,client\n" + "".join(f"{n},2026-11-28T10:00:0{n}Z,{ip}\n" for n, ip in enumerate(ADDRESSES)))
    return path


def test_the_query_answers_as_the_enrichment_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, table, _, _ = build_version(tmp_path, "geo", ROWS)
    requests = _addresses(tmp_path)
    ranges = f"geo={tmp_path / 'geo.tsv'}"
    for query in (
        f"SELECT * FROM fp_enrich('{requests}', 'client', 'geo') ORDER BY n",
        f"SELECT * FROM fp_enrich_as_of('{requests}', 'client', 'time', 'geo') ORDER BY n",
    ):
        code, out, err = _query(tmp_path, capsys, "--ranges", ranges, "--query", query)
        assert code == 0, err
        rows = list(csv.DictReader(io.StringIO(out)))
        assert [row["client"] for row in rows] == ADDRESSES
        expected = [*engine_answers("geo", source, table, ADDRESSES[:-1], "data"), {}]
        for row, answer in zip(rows, expected, strict=True):
            data = answer.get("data", dict.fromkeys(table.columns, ""))
            assert {name: row[f"geo_{name}"] for name in table.columns} == data, row
    assert any("data" not in answer for answer in expected)  # a miss among them
    assert rows[0]["geo_version"] == "1"


def test_a_bad_query_is_one_line_and_exit_status_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_version(tmp_path, "geo", ROWS)
    ranges = f"geo={tmp_path / 'geo.tsv'}"
    for query in ("SELECT * FROM nowhere", f"SELECT * FROM fp_enrich('{tmp_path}/x.csv', 'ip', 'nope')"):
        code, out, err = _query(tmp_path, capsys, "--ranges", ranges, "--query", query)
        assert code == 1
        assert out == ""
        assert err.splitlines()[-1].startswith("error: "), err
        assert "Traceback" not in err
    assert "no dataset named nope" in err
    command = [
        sys.executable,
        "-m",
        "sql",
        "--ranges",
        ranges,
        "--cache",
        str(tmp_path / "cache"),
        "--query",
        "SELEC 1",
    ]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    assert run.returncode == 1
    assert run.stdout == ""
    assert run.stderr == 'error: Parser Error: syntax error at or near "SELEC"\n'


def test_missing_ranges_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _query(tmp_path, capsys, "--ranges", f"geo={tmp_path / 'none.tsv'}", "--query", "SELECT 1")
    assert code == 1
    assert out == ""
    assert err.startswith("error: ")
    assert "none.tsv" in err
    assert err.count("\n") == 1


def test_names_are_made_sql_names() -> None:
    names = sql_names(["geo", "Geo-V4", "2024.asn", "select", "geo.v4", "geo_versions"], ["select"])
    assert names == {
        "geo": "geo",
        "Geo-V4": "geo_v4",
        "2024.asn": "ds_2024_asn",
        "select": "ds_select",
        "geo.v4": "geo_v4_2",
        "geo_versions": "geo_versions_2",
    }


def test_datasets_are_queried_by_their_sql_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    build_version(tmp_path, "a", ROWS)
    ranges = [f"{name}={tmp_path / 'a.tsv'}" for name in ("my-geo", "2024.asn", "order")]
    args = [arg for given in ranges for arg in ("--ranges", given)]
    query = "SELECT (SELECT count(*) FROM my_geo), (SELECT count(*) FROM ds_2024_asn), (SELECT count(*) FROM ds_order)"
    code, out, err = _query(tmp_path, capsys, *args, "--query", query)
    assert code == 0, err
    counts = out.splitlines()[1].split(",")
    assert len(set(counts)) == 1
    assert int(counts[0]) >= len(ROWS)
    _addresses(tmp_path)
    monkeypatch.chdir(tmp_path)  # a file named relative to where make sql runs
    code, out, err = _query(tmp_path, capsys, *args, "--query", "FROM fp_enrich('requests.csv', 'client', 'my-geo')")
    assert code == 0, err
    assert "my_geo_col3" in out.splitlines()[0]


def test_a_second_session_reads_the_cached_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_version(tmp_path, "geo", ROWS)
    args = ["--ranges", f"geo={tmp_path / 'geo.tsv'}", "--query", "SELECT count(*) FROM geo_versions"]
    first = _query(tmp_path, capsys, *args)
    written = {path: path.stat().st_mtime_ns for path in (tmp_path / "cache").glob("*.parquet")}
    second = _query(tmp_path, capsys, *args)
    assert first[0] == second[0] == 0
    assert first[1] == second[1]
    assert "writing the table" in first[2]
    assert "writing the table" not in second[2]
    assert len(written) == 1
    assert {path: path.stat().st_mtime_ns for path in (tmp_path / "cache").glob("*.parquet")} == written
    (tmp_path / "geo.tsv").write_text("9.0.0.0\t9.0.0.255\tXX\t1\n")  # other ranges: another table
    third = _query(tmp_path, capsys, *args)
    assert "writing the table" in third[2]
    assert len(list((tmp_path / "cache").glob("*.parquet"))) == 2


def test_a_stack_that_cannot_be_reached_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {"TABLE_NAME": "t", "BUCKET_NAME": "b", "AWS_ENDPOINT_URL": "http://127.0.0.1:9"}.items():
        monkeypatch.setenv(name, value)  # port 9 (discard): nothing listens there
    for name in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    code, out, err = _query(tmp_path, capsys, "--query", "SELECT 1")
    assert code == 1
    assert out == ""
    assert err.startswith("error: DynamoDB ")
    assert err.count("\n") == 1
    monkeypatch.delenv("BUCKET_NAME")
    code, _, err = _query(tmp_path, capsys, "--query", "SELECT 1")
    assert code == 1
    assert err == "error: BUCKET_NAME names the stack's bucket, where each version keeps its table file\n"


def test_only_the_datasets_named_are_attached(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_version(tmp_path, "geo", ROWS)
    ranges = ["--ranges", f"geo={tmp_path / 'geo.tsv'}", "--ranges", f"asn={tmp_path / 'geo.tsv'}"]
    code, out, err = _query(tmp_path, capsys, *ranges, "--dataset", "asn", "--query", "SELECT count(*) > 0 FROM asn")
    assert code == 0, err
    assert out.splitlines()[1] == "True"
    code, _, err = _query(tmp_path, capsys, *ranges, "--dataset", "asn", "--query", "SELECT count(*) FROM geo")
    assert code == 1
    assert "geo" in err
    code, _, err = _query(tmp_path, capsys, *ranges, "--dataset", "nope", "--query", "SELECT 1")
    assert code == 1
    assert err == "error: no ranges are given for nope\n"
