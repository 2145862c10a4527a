"""``make bench`` writes its synthetic file where no folder exists yet, as in a fresh clone."""

from __future__ import annotations

from pathlib import Path

from bench import synthetic
from fencepost.core.space.addresses import parse_address


def test_the_synthetic_file_is_written_into_a_folder_that_does_not_exist_yet(tmp_path: Path) -> None:
    path = synthetic.write(tmp_path / "bench-results" / "synthetic-50.tsv", 50)
    rows = [line.split("\t") for line in path.read_text().splitlines()]
    assert len(rows) == 50
    assert all(parse_address(row[0])[1] <= parse_address(row[1])[1] for row in rows)
