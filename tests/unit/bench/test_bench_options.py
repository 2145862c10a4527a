"""The bench's numbers out of range are refused by argparse, saying the range, before anything runs."""

from __future__ import annotations

import argparse

import pytest

from bench import soak
from bench.options import at_least


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--rate", "-5"], "-5 is not a number from 0 up"),
        (["--rate", "nan"], "nan is not a number from 0 up"),
        (["--lookers", "0"], "0 is not a number from 1 up"),
        (["--rows", "-1"], "-1 is not a number from 1 up"),
        (["--rows", "2.5"], "'2.5' is not a whole number"),
        (["--rate", "x"], "'x' is not a number"),
    ],
)
def test_the_soak_refuses_a_number_out_of_its_range_before_it_starts(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(soak, "measure", lambda *_, **__: pytest.fail("the soak started"))
    with pytest.raises(SystemExit) as exited:
        soak.main(argv)
    assert exited.value.code == 2
    assert f"argument {argv[0]}: {says}" in capsys.readouterr().err


def test_a_number_at_its_minimum_or_above_is_read_as_its_kind() -> None:
    rate, count = at_least(0), at_least(1, int)
    assert (rate("0"), rate("2.5"), count("1"), count("40")) == (0.0, 2.5, 1, 40)
    assert isinstance(count("3"), int)
    with pytest.raises(argparse.ArgumentTypeError, match="not a number from 1 up"):
        count("0")
