"""The convention the docs' walkthroughs are compared by (``tests/walkthroughs.py``): what matches, and what does
not, so that a doc that drifts from the code fails."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.walkthroughs import Command, Run, matches, shell_blocks_outside_console, walkthrough

ANSWER = (
    '{"ip":"8.8.8.8","dataset":"sample","version":1,"range":{"start":"8.8.8.0","end":"8.8.8.255",'
    '"cidrs":["8.8.8.0/24"]},"match":{"start":"8.8.8.0","end":"8.8.8.255","network":"8.8.8.0/24"},'
    '"data":{"asn":"15169","country":"US"}}'
)


@pytest.mark.parametrize(
    "shown",
    [
        ANSWER,
        # wrapped over lines as the docs do
        '{"ip":"8.8.8.8","dataset":"sample","version":1,\n "range":{"start":"8.8.8.0","end":"8.8.8.255","cidrs":'
        '["8.8.8.0/24"]},\n "match":{"start":"8.8.8.0","end":"8.8.8.255","network":"8.8.8.0/24"},'
        '"data":{"asn":"15169","country":"US"}}',
        '{"ip":"8.8.8.8","dataset":"sample","version":1,"range":{…},"match":…,"data":{"asn":"15169",…}}',
        '{"ip":"8.8.8.8",...,"data":{"asn":"15169","country":"US"}}',
        '{"ip":"8.8.8.8","range":{"start":"8.8.8.0",…,"cidrs":["8.8.8.0/24",…]},…}',
        '{"ip":"<address>",…}',
    ],
)
def test_json_matches_field_by_field_with_placeholders(shown: str) -> None:
    assert matches(shown, ANSWER)


@pytest.mark.parametrize(
    "shown",
    [
        '{"ip":"8.8.8.8","dataset":"sample","version":2,…}',  # another value
        '{"ip":"8.8.8.8","dataset":"sample","version":1}',  # members left out without …
        '{"ip":"8.8.8.8","range":{"start":"8.8.8.0","end":"8.8.8.255"},…}',  # range.cidrs left out without …
        '{"ip":"8.8.8.8","gap":{…},…}',  # a member the answer lacks
        '{"ip":"8.8.8.8","range":{"cidrs":["8.8.8.0/25",…],…},…}',
        '{"ip":"8.8.8.8","version":"1",…}',  # a string for a number
        '{"ip":"<address>","next":"<cursor>",…}',  # a placeholder for a member that is not there
    ],
)
def test_json_that_differs_on_a_stable_part_does_not_match(shown: str) -> None:
    assert not matches(shown, ANSWER)


def test_a_placeholder_does_not_match_null() -> None:
    assert not matches('{"next":"<opaque cursor>"}', '{"next":null}')
    assert matches('{"next":"<opaque cursor>"}', '{"next":"eyJ2Ijox"}')


RUN = Run(datetime(2026, 11, 28, 3, 0, tzinfo=UTC), datetime(2026, 11, 28, 3, 10, tzinfo=UTC))


def test_a_timestamp_the_run_made_matches_any_of_its_form() -> None:
    assert matches('{"loaded_at":"2026-11-22T00:07:22+00:00"}', '{"loaded_at":"2026-11-28T03:01:02+00:00"}', RUN)
    assert matches('{"from":"2026-11-26T07:54:47.878Z"}', '{"from":"2026-11-28T03:01:02.001Z"}', RUN)
    assert matches('{"kept_until":"2026-12-26T05:03:14.938Z"}', '{"kept_until":"2026-12-28T03:01:02.001Z"}', RUN)
    assert matches("last-modified: Sun, 22 Nov 2026 00:07:22 GMT", "last-modified: Sat, 28 Nov 2026 03:01:02 GMT", RUN)
    assert matches("[11:56:07] dataset drop: READY version 1", "[03:01:02] dataset drop: READY version 1", RUN)


def test_a_timestamp_the_run_did_not_make_is_compared_as_it_is() -> None:
    assert matches('{"from":"2025-06-01T00:00:00Z"}', '{"from":"2025-06-01T00:00:00Z"}', RUN)
    assert not matches('{"from":"2025-06-01T00:00:00Z"}', '{"from":"2025-01-01T00:00:00Z"}', RUN)
    assert not matches('{"from":"2026-11-26T07:54:47.878Z"}', '{"from":"2025-01-01T00:00:00Z"}', RUN)
    assert not matches('{"from":"2026-11-26T07:54:47.878Z"}', '{"from":null}', RUN)
    assert not matches("[11:56:07] dataset drop: READY version 1", "[03:01:02] dataset drop: READY version 2", RUN)


def test_an_ellipsis_in_a_json_string_matches_any_text_there() -> None:
    assert matches(
        '{"url":"http://127.0.0.1:…/publisher/drop.txt"}', '{"url":"http://127.0.0.1:45123/publisher/drop.txt"}'
    )
    assert not matches('{"url":"http://127.0.0.1:…/publisher/drop.txt"}', '{"url":"http://127.0.0.1:4/other/drop.txt"}')


def test_json_lines_are_compared_one_by_one() -> None:
    shown = '{"version":2,…}\n{"version":1,…}'
    assert matches(shown, '{"version":2,"live":[]}\n{"version":1,"live":[]}')
    assert not matches(shown, '{"version":2,"live":[]}')


def test_text_matches_line_by_line_with_ellipses() -> None:
    actual = "HTTP/1.1 303 See Other\nlocation: http://127.0.0.1:4566/ranges/_exports/geo/1.mmdb?X-Amz=1\n\nbody"
    assert matches("HTTP/1.1 303 See Other\nlocation: http://127.0.0.1:…/ranges/_exports/geo/1.mmdb?…\n…", actual)
    assert not matches("HTTP/1.1 202 Accepted\n…", actual)
    assert matches("1.0.0.0/19\n1.0.64.0/18", "1.0.0.0/19\n1.0.64.0/18\n")
    assert not matches("1.0.0.0/19\n1.0.64.0/18", "1.0.0.0/19\n1.0.64.0/18\n1.0.128.0/17")


def test_output_is_read_as_a_terminal_shows_it() -> None:
    progress = (
        "Completed 117 Bytes/117 Bytes with 1 file(s) remaining\rupload: ./geo.csv to s3://ranges/geo/geo.csv  \n"
    )
    assert matches("upload: ./geo.csv to s3://ranges/geo/geo.csv", progress)
    assert matches("HTTP/1.1 304 Not Modified\netag: x", "HTTP/1.1 304 Not Modified\r\netag: x\r\n")


def test_a_walkthrough_is_its_console_blocks_commands_and_shown_output(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "Text.\n\n```console\n$ printf 'a\\n' > a.txt   # a file\n$ cat a.txt\na\n# [10:00:00] make run: a remark\n"
        '$ curl -s "$API/x" \\\n    -H \'accept: application/json\'\n{"x":1}\n```\n\n```\n$ not run\n```\n'
        '```console\n$ curl -s -o out.json "$API/y"\n```\n'
    )

    found = walkthrough(doc, tmp_path)

    assert found.commands == [
        Command("printf 'a\\n' > a.txt   # a file", "", "doc.md:4"),
        Command("cat a.txt", "a", "doc.md:5"),
        Command("curl -s \"$API/x\" \\\n    -H 'accept: application/json'", '{"x":1}', "doc.md:8"),
        Command('curl -s -o out.json "$API/y"', "", "doc.md:17"),
    ]
    assert [command.repeated for command in found.commands] == [False, False, True, False]


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("doc", DOCS, ids=[str(path.relative_to(ROOT)) for path in DOCS])
def test_every_shell_session_in_the_docs_is_a_walkthrough_that_runs(doc: Path) -> None:
    assert shell_blocks_outside_console(doc) == []


@pytest.mark.parametrize("doc", DOCS, ids=[str(path.relative_to(ROOT)) for path in DOCS])
def test_the_docs_commands_reach_the_stack_through_its_variables_alone(doc: Path) -> None:
    hard_coded = [
        f"{command.doc}: {command.text}"
        for command in walkthrough(doc, ROOT).commands
        if re.search(r"127\.0\.0\.1:\d|localhost:\d|--endpoint-url|:(3000|4566|8000)\b", command.text)
    ]
    assert hard_coded == []
