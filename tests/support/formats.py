"""Reading a file's text in the unit tests of the formats: the problems a read kept, as (line, reason), and a text
read as a file named ``f.txt``."""

from __future__ import annotations

from fencepost.core.formats.base import FileSummary, ReadOptions
from fencepost.core.versions.build import Collector, ProblemLog
from tests.reading import read_text


def problems_of(problems: ProblemLog) -> list[tuple[int | None, str]]:
    return [(problem.line, problem.reason) for problem in problems.kept]


def read_sample(text: str | bytes, options: ReadOptions | None = None) -> tuple[FileSummary, Collector, ProblemLog]:
    return read_text(text, options, "f.txt")
