"""``--out-format parquet`` (``enrichment.parquet_output``): each input row with its answers as text columns, in
order, a row group per batch; read back by pyarrow and by DuckDB; what cannot be written refused with the reason."""

from __future__ import annotations

import io
import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from enrich.__main__ import main
from fencepost.enrichment.job_spec import JobSpec, assemble
from fencepost.enrichment.parquet_output import ParquetOutput
from fencepost.enrichment.sources import FileSource
from tests.support import ROOT

RANGES = "1.1.1.0\t1.1.1.255\t13335\tUS\tCloudflare\n2001:db8::\t2001:db8::ffff\t64496\tZZ\tdoc\n"
ANSWERS = ("geo.data.col3", "geo.data.col4", "geo.data.col5")


def _answers(*values: str) -> dict[str, str]:
    return dict(zip(ANSWERS, values, strict=True))


def _run(tmp_path: Path, name: str, body: str, *options: str) -> tuple[int, Path]:
    (tmp_path / "geo.tsv").write_text(RANGES)
    (tmp_path / name).write_text(body)
    out = tmp_path / "out.parquet"
    status = main([str(tmp_path / name), "--ranges", f"geo={tmp_path / 'geo.tsv'}", "--out", str(out), "--quiet",
                   *options])  # fmt: skip
    return status, out


def test_a_csv_with_its_header_extra_cells_and_twice_named_columns(tmp_path: Path) -> None:
    body = "n,ip,n\n1,1.1.1.1,x\n2,8.8.8.8,y,extra,more\n3,2001:db8::2\n4,bogus,z\n"
    status, out = _run(tmp_path, "in.csv", body)
    assert status == 0
    table = pq.read_table(out)
    assert table.column_names == ["n", "ip", "n_2", "_more", *ANSWERS]
    assert table.to_pylist() == [
        {"n": "1", "ip": "1.1.1.1", "n_2": "x", "_more": None, **_answers("13335", "US", "Cloudflare")},
        {"n": "2", "ip": "8.8.8.8", "n_2": "y", "_more": "extra,more", **dict.fromkeys(ANSWERS)},
        {"n": "3", "ip": "2001:db8::2", "n_2": None, "_more": None, **_answers("64496", "ZZ", "doc")},
        {"n": "4", "ip": "bogus", "n_2": "z", "_more": None, **dict.fromkeys(ANSWERS)},
    ]
    found = duckdb.execute(f"SELECT ip FROM '{out}' WHERE \"geo.data.col4\" = 'US'").fetchall()
    assert found == [("1.1.1.1",)]


def test_many_batches_are_row_groups_in_order(tmp_path: Path) -> None:
    (tmp_path / "geo.tsv").write_text(RANGES)
    source = FileSource("geo", [tmp_path / "geo.tsv"])
    out = tmp_path / "out.parquet"
    job = assemble(JobSpec(("geo",), out_format="parquet"), "in.txt", lambda _name: source, parquet=str(out))
    job.batch_rows = 1000
    lines = [f"1.1.1.{n % 256}" if n % 3 else "8.8.8.8" for n in range(5_500)]
    job.run(io.BytesIO(("\n".join(lines) + "\n").encode()), "in.txt", lambda _text: None)
    assert isinstance(job.writer, ParquetOutput)
    job.writer.close()
    file = pq.ParquetFile(out)
    assert file.metadata.num_row_groups == 6
    table = file.read()
    assert table.column("ip").to_pylist() == lines
    assert table.column("geo.data.col4").to_pylist() == [None if line == "8.8.8.8" else "US" for line in lines]


def test_json_lines_and_a_log_keep_what_they_were(tmp_path: Path) -> None:
    status, out = _run(tmp_path, "in.jsonl", '{"ip": "1.1.1.1", "n": 1}\n{"n": 2}\n')
    assert status == 0
    rows = pq.read_table(out).to_pylist()
    assert [json.loads(row["line"]) for row in rows] == [{"ip": "1.1.1.1", "n": 1}, {"n": 2}]
    assert [row["geo.data.col5"] for row in rows] == ["Cloudflare", None]
    alb = (ROOT / "tests" / "data" / "aws_logs" / "alb.log").read_text()
    status, out = _run(tmp_path, "alb.log", alb, "--format", "alb")
    assert status == 0
    table = pq.read_table(out)
    assert table.num_rows == len(alb.splitlines())
    assert table.column_names[:4] == ["type", "time", "elb", "client:port"]
    assert table.column("client:port").to_pylist()[0] == alb.split(" ")[3]


def test_an_empty_input_is_a_file_of_no_row_with_its_columns(tmp_path: Path) -> None:
    status, out = _run(tmp_path, "in.csv", "n,ip\n")
    assert status == 0
    table = pq.read_table(out)
    assert (table.num_rows, table.column_names) == (0, ["n", "ip", "_more", *ANSWERS])


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (["--out", "-", "--out-format", "parquet"], "written to a file"),
        (["--out", "x.parquet.gz", "--out-format", "parquet"], "no .gz"),
    ],
)
def test_parquet_that_cannot_be_written_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], reason: str
) -> None:
    (tmp_path / "geo.tsv").write_text(RANGES)
    (tmp_path / "in.txt").write_text("1.1.1.1\n")
    status = main([str(tmp_path / "in.txt"), "--ranges", f"geo={tmp_path / 'geo.tsv'}", *options])
    assert status == 1
    assert reason in capsys.readouterr().err


def test_an_input_column_named_as_an_answer_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _ = _run(tmp_path, "in.csv", "ip,geo.data.col3\n1.1.1.1,x\n")
    assert status == 1
    assert "named 'geo.data.col3'" in capsys.readouterr().err
