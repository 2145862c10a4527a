"""``make plan`` (``python -m planner``) on files it cannot plan: a clear error naming the file and why, exit
status 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner import __main__ as plan_cli


def _plan(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str]:
    status = plan_cli.main(list(arguments))
    return status, capsys.readouterr().err


def test_a_folder_holding_a_file_that_is_no_range_file_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ranges.csv").write_text("start,end,country\n1.0.0.0,1.0.0.255,AU\n")
    (tmp_path / "README.md").write_text("# Data\n\nThese files come from...\n")

    status, said = _plan(capsys, str(tmp_path))

    assert status == 2
    assert said.startswith(f"error: {tmp_path / 'README.md'}, line 3: a start,end file needs at least 2 columns")
    assert "every file of a folder named" in said


def test_a_missing_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, said = _plan(capsys, str(tmp_path / "nothing.tsv"))

    assert (status, said) == (2, f"error: no such file or folder: {tmp_path / 'nothing.tsv'}\n")


def test_a_folder_without_range_files_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "_settings.json").write_text("{}")

    status, said = _plan(capsys, str(tmp_path))

    assert (status, said) == (2, f"error: no range file in {tmp_path}\n")


def test_settings_it_cannot_use_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ranges.csv").write_text("start,end,country\n1.0.0.0,1.0.0.255,AU\n")
    (tmp_path / "_settings.json").write_text('{"index": 5}')

    status, said = _plan(capsys, str(tmp_path))

    assert status == 2
    assert said.startswith("error: ")
    assert "index" in said
    assert "Traceback" not in said
