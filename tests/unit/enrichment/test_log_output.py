"""A log written in its own syntax (``--out-format log``): each line as it was read, the answers appended as fields
of the log's own kind, readable again by the same reader; the batch read for addresses alone gives the same rows
(and the same bad rows, by line) as the reader's step per line."""

from __future__ import annotations

from pathlib import Path

import pytest

from fencepost.core.logs.aws_layouts import LAYOUTS
from fencepost.enrichment.inputs import Reader
from fencepost.enrichment.outputs import OutputError, Writer
from fencepost.enrichment.sources import FileSource
from tests.support import ROOT
from tests.support.enrichment import LAN, RANGES, TEN, enrich, ranges_source

LOGS = ROOT / "tests" / "data" / "aws_logs"
FILES = {"alb": "alb.log", "cloudfront": "cloudfront.log", "vpc-flow": "vpc_flow.log", "s3-access": "s3_access.log"}


@pytest.fixture(scope="module")
def geo(tmp_path_factory: pytest.TempPathFactory) -> FileSource:
    return ranges_source(tmp_path_factory.mktemp("geo"), RANGES)


def test_an_alb_log_keeps_its_lines_and_gets_quoted_fields(geo: FileSource) -> None:
    lines = (LOGS / "alb.log").read_text().splitlines()
    written, summary = enrich(geo, "alb", "\n".join(lines) + "\n", "log")
    out = written.splitlines()
    assert len(out) == len(lines)
    for line, row in zip(lines, out, strict=True):
        answers = LAN if line.split()[3].startswith("192.168.") else TEN
        assert row == line + "".join(f' "{value}"' for value in answers)
    assert (summary.rows, summary.bad) == (7, 0)


def test_values_with_quotes_and_no_value_in_alb_fields(tmp_path: Path) -> None:
    source = ranges_source(tmp_path, '1.1.1.0\t1.1.1.255\t13335\tUS\tCloudflare, "Inc."\n')
    line = (LOGS / "alb.log").read_text().splitlines()[0]
    hit = line.replace("192.168.131.39", "1.1.1.1")
    written, _ = enrich(source, "alb", f"{hit}\n{line}\n", "log")
    assert written.splitlines() == [hit + ' "13335" "US" "Cloudflare, \\x22Inc.\\x22"', line + ' "-" "-" "-"']


@pytest.mark.parametrize("form", sorted(FILES))
def test_each_log_read_again_gives_its_answers_and_rows(geo: FileSource, form: str) -> None:
    text = (LOGS / FILES[form]).read_text()
    written, summary = enrich(geo, form, text, "log")
    again, read_again = enrich(geo, form, written, "log")
    assert (read_again.rows, read_again.bad) == (summary.rows, summary.bad)
    kept = [row for row in written.splitlines() if not row.startswith("#")]
    assert [row[: len(line)] for row, line in zip(again.splitlines()[-len(kept) :], kept, strict=True)] == kept


@pytest.mark.parametrize("form", sorted(FILES))
def test_the_batch_read_for_addresses_alone_gives_what_the_step_per_line_gives(form: str) -> None:
    text = (LOGS / FILES[form]).read_text()
    lines = [*text.splitlines(), "x", ""]  # bad lines: the batch is then read line by line
    whole = Reader(form).read(lines, 1)
    lean_reader = Reader(form, time="log")
    lean_reader.whole_fields = False
    data = [line for line in text.splitlines() if LAYOUTS[form].header(line) is None]
    lean, full = lean_reader.read(data, 1), Reader(form, time="log").read(data, 1)
    assert (lean.addresses, lean.times, lean.numbers) == (full.addresses, full.times, full.numbers)
    mixed = lean_reader.read(lines, 1)
    assert (mixed.addresses, mixed.bad, mixed.numbers) == (whole.addresses, whole.bad, whole.numbers)


def test_cloudfront_and_vpc_logs_get_a_header_naming_the_answers(geo: FileSource) -> None:
    written, _ = enrich(geo, "vpc-flow", (LOGS / "vpc_flow.log").read_text(), "log")
    assert written.splitlines()[0].endswith(" srcaddr dstaddr srcport dstport protocol packets bytes start end action "
                                            "log-status geo.data.col3 geo.data.col4 geo.data.col5")  # fmt: skip
    written, _ = enrich(geo, "cloudfront", (LOGS / "cloudfront.log").read_text(), "log")
    assert written.splitlines()[:2] == ["#Version: 1.0", written.splitlines()[1]]
    assert written.splitlines()[1].startswith("#Fields: date time ")
    assert written.splitlines()[1].endswith(" geo.data.col3 geo.data.col4 geo.data.col5")


def test_only_a_log_is_written_as_a_log() -> None:
    with pytest.raises(OutputError, match="no log"):
        Writer("log", Reader("csv"), [])
