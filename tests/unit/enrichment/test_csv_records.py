"""CSV and TSV records that span lines (``enrichment.csv_records``): a quoted field's line breaks keep its row whole,
as it was written, whatever the batches it is read in; a quote no line closes is a bad row of its own line, and
reading goes on; the lines a record may span are a job's setting."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from enrich.__main__ import main
from fencepost.enrichment.csv_records import MOST_RECORD_LINES, RECORD_LINES
from fencepost.enrichment.inputs import InputError
from fencepost.enrichment.job_spec import JobSpec
from fencepost.enrichment.sources import FileSource
from tests.support.enrichment import LAN, RANGES, TEN, enrich, ranges_source

ANSWERS = ["col3", "col4", "col5"]
QUOTED = (
    "ip,note\r\n"
    '10.0.0.1,"two\r\nlines"\r\n'
    "192.168.1.1,plain\r\n"
    '10.0.0.2,"three\nlines with ""quotes""\n, and a comma"\r\n'
    '"192.168.0.9","quoted ip, no break"\r\n'
)


@pytest.fixture(scope="module")
def geo(tmp_path_factory: pytest.TempPathFactory) -> FileSource:
    return ranges_source(tmp_path_factory.mktemp("geo"), RANGES)


def _parsed(text: str, separator: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=separator))


def test_a_quoted_line_break_keeps_its_row_whole_and_as_it_was_written(geo: FileSource) -> None:
    out, summary = enrich(geo, "csv", QUOTED)

    records = _parsed(QUOTED)
    assert summary.rows == len(records) - 1 == 4
    assert summary.bad == 0
    assert _parsed(out) == [
        [*records[0], *(f"geo.data.{name}" for name in ANSWERS)],
        [*records[1], *TEN],
        [*records[2], *LAN],
        [*records[3], *TEN],
        [*records[4], *LAN],
    ]
    assert '10.0.0.1,"two\r\nlines",' in out  # the line break inside the quotes as it was: CRLF
    assert '10.0.0.2,"three\nlines with ""quotes""\n, and a comma",' in out


def test_tsv_records_span_lines_too(geo: FileSource) -> None:
    text = 'ip\tnote\n10.0.0.1\t"a\nb"\n192.168.1.1\tc\n'
    out, summary = enrich(geo, "tsv", text, out="tsv")
    assert summary.rows == 2
    rows = ['10.0.0.1\t"a\n', 'b"\t' + "\t".join(TEN) + "\n", "192.168.1.1\tc\t" + "\t".join(LAN) + "\n"]
    assert out.splitlines(keepends=True)[1:] == rows


@pytest.mark.parametrize("batch_rows", [1, 2, 3, 5])
def test_a_record_read_across_batches_is_read_as_in_one(geo: FileSource, batch_rows: int) -> None:
    text = QUOTED * 3 + '10.0.0.3,"never closed\n10.0.0.4,after\n'
    whole, summary = enrich(geo, "csv", text)
    assert enrich(geo, "csv", text, batch_rows=batch_rows)[0] == whole
    assert summary.rows == 3 * 4 + 2 + 2  # each copy's records, the header line of the 2nd and 3rd, the last two
    assert summary.lines == text.count("\n")


def test_a_quote_no_line_closes_is_a_bad_row_of_its_line_and_reading_goes_on(geo: FileSource) -> None:
    text = 'ip,note\n10.0.0.1,ok\n10.0.0.2,"open\n10.0.0.3,"a\nb"\n10.0.0.4,last\n'  # line 3 opens; 4 and 5 close
    out, summary = enrich(geo, "csv", text)
    # lines 3 and 4 both open a quote: they make one record (3-4), and line 5 opens another that nothing closes
    assert summary.rows == 4
    assert summary.first_bad == [{"line": 5, "reason": _reason(RECORD_LINES)}]
    assert out.endswith('\nb",,,\n10.0.0.4,last,' + ",".join(TEN) + "\n")


def test_a_record_spans_at_most_record_lines_lines(geo: FileSource) -> None:
    text = 'ip,note\n10.0.0.1,"one\ntwo\nthree"\n192.168.1.1,x\n'
    out, summary = enrich(geo, "csv", text, record_lines=2)
    assert summary.rows == 4  # the opening line alone, then its next lines read afresh: "two" is no address
    assert [bad["line"] for bad in summary.first_bad] == [2, 3, 4]
    assert [bad["line"] for bad in summary.first_bad if bad["reason"] == _reason(2)] == [2, 4]
    assert out.splitlines()[-1] == "192.168.1.1,x," + ",".join(LAN)
    assert enrich(geo, "csv", text, record_lines=3)[1].rows == 2


def test_an_unclosed_quote_near_the_start_does_not_take_the_rest_of_a_large_file(geo: FileSource) -> None:
    text = 'ip\n"10.0.0.1\n' + "192.168.1.1\n" * 20_000
    out, summary = enrich(geo, "csv", text)
    assert summary.rows == 20_001
    assert summary.bad == 1
    assert out.count(",".join(LAN)) == 20_000


def _reason(limit: int) -> str:
    return f"the line opens a quoted field that no line closes within {limit:,} lines: read as a row of its own"


def test_record_lines_is_a_job_setting_within_its_bounds() -> None:
    assert JobSpec.parse({"datasets": ["geo"]}).record_lines == RECORD_LINES
    assert JobSpec.parse({"datasets": ["geo"], "record_lines": 7}).record_lines == 7
    for wrong in (0, MOST_RECORD_LINES + 1):
        with pytest.raises(InputError, match="record_lines is from 1"):
            JobSpec.parse({"datasets": ["geo"], "record_lines": wrong})
    for kind in (True, "7", 1.5):
        with pytest.raises(InputError, match="whole number"):
            JobSpec.parse({"datasets": ["geo"], "record_lines": kind})


def test_the_cli_takes_record_lines(tmp_path: Path) -> None:
    (tmp_path / "geo.tsv").write_text(RANGES)
    (tmp_path / "in.csv").write_text('ip,note\n10.0.0.1,"a\nb\nc"\n')
    out = tmp_path / "out.csv"
    for limit, rows in (("3", 1), ("2", 3)):
        status = main(
            [str(tmp_path / "in.csv"), "--ranges", f"geo={tmp_path / 'geo.tsv'}", "--out", str(out), "--quiet",
             "--record-lines", limit, "--summary", str(tmp_path / "summary.json")]
        )  # fmt: skip
        assert status == 0
        assert json.loads((tmp_path / "summary.json").read_text())["rows"] == rows
