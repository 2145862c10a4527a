"""The docs' walkthroughs as tests: what a ``console`` block holds, and how its shown output is compared.

A walkthrough is a fenced block whose info string is ``console``, in README.md or docs/*.md. In it:

- ``$ `` starts a command, run as written by bash (a line ending with ``\\`` continues it); the lines after it, up to
  the next command, are the output it shows. A line starting with ``# `` is a remark (what ``make run``'s terminal
  printed meanwhile, say): shown, never compared. A command shown without output must succeed; its output is not
  compared.
- Output is compared as a terminal shows it (a line rewritten after a carriage return is its last text), with
  trailing spaces and blank lines at either end dropped, on its stable parts:
  - JSON (the shown text, whole or line by line, parses once its placeholders are read) is compared field by field:
    ``…`` (or ``...``) as a value matches any value, as an object's member any further members, as an array's last
    element any further elements; a string ``<anything in angle brackets>`` matches any value but null.
  - Text is compared line by line: ``…`` (or ``...``) in a line matches any text there, a line of ``…`` alone any
    number of lines.
  - In both, a timestamp shown (``2026-11-26T07:54:47.878Z``, ``Sun, 22 Nov 2026 00:07:22 GMT``) matches the same
    timestamp, or any timestamp of its form made during the run (from a day before the walkthrough started to 400
    days after it ended: when a load went live, when a version will be deleted); a time of day (``[11:56:07]``)
    matches any. So ``"from":"2025-06-01T00:00:00Z"`` is checked, ``"loaded_at":"2026-11-22T00:07:22+00:00"`` is not.
    ``…`` inside a JSON string matches any text there.
- A read-only ``curl`` (no ``-X``, ``-d``, ``-o``, ``-T``) is repeated until its output matches, as a reader waits
  for a load: at most ``RETRY_SECONDS``. Everything else runs once.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

RETRY_SECONDS = 90.0
ELLIPSIS = re.compile(r"…|\.\.\.")
ANY = "\0any"  # a placeholder after parsing: any value, any further members or elements
ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)"
HTTP_DATE = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT"
CLOCK = r"(?<![\d:.T-])\d\d:\d\d:\d\d(?![\d:.])"
STAMP = re.compile(f"({ISO})|({HTTP_DATE})|({CLOCK})")


@dataclass(frozen=True, slots=True)
class Run:
    """When the walkthrough ran: a timestamp inside its window was made by it, and may differ from the doc's."""

    started: datetime
    ended: datetime | None = None  # None: still running

    def made(self, stamp: str) -> bool:
        when = _instant(stamp)
        if when is None:  # a time of day: of today, whatever the doc shows
            return True
        ended = self.ended or datetime.now(UTC)
        return self.started - timedelta(days=1) <= when <= ended + timedelta(days=400)


def _instant(stamp: str) -> datetime | None:
    if re.fullmatch(ISO, stamp):
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    if re.fullmatch(HTTP_DATE, stamp):
        return datetime.strptime(stamp, "%a, %d %b %Y %H:%M:%S GMT").replace(tzinfo=UTC)
    return None


ALWAYS = Run(datetime.min.replace(tzinfo=UTC) + timedelta(days=2))  # every timestamp counts as made by the run


@dataclass(frozen=True, slots=True)
class Command:
    text: str  # as bash runs it (continuation lines joined by bash itself)
    shown: str  # the output the doc shows ("" when it shows none)
    doc: str  # where: "README.md:42"

    @property
    def repeated(self) -> bool:
        """A read-only curl: repeated until its output matches (a load in progress answers otherwise)."""
        try:
            words = shlex.split(self.text, comments=True)
        except ValueError:
            return False
        writes = {"-X", "--request", "-d", "--data", "--data-binary", "-o", "--output", "-T", "--upload-file", "-O"}
        return bool(words) and words[0] == "curl" and not writes & set(words)


@dataclass(frozen=True, slots=True)
class Walkthrough:
    path: Path
    commands: list[Command]


def walkthrough(path: Path, root: Path) -> Walkthrough:
    """Every ``console`` block of the document, in order, as one list of commands."""
    commands: list[Command] = []
    fenced: str | None = None
    block: list[tuple[int, str]] = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            if fenced is None:
                fenced, block = line[3:].strip(), []
            else:
                if fenced == "console":
                    commands += _commands(block, f"{path.relative_to(root)}")
                fenced = None
        elif fenced is not None:
            block.append((number, line))
    return Walkthrough(path, commands)


def shell_blocks_outside_console(path: Path) -> list[int]:
    """Lines of fenced blocks holding ``$ `` commands that are not ``console`` blocks (and so would never run)."""
    found, fenced = [], None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            fenced = line[3:].strip() if fenced is None else None
        elif fenced not in (None, "console") and line.startswith("$ "):
            found.append(number)
    return found


def _commands(block: list[tuple[int, str]], doc: str) -> list[Command]:
    commands: list[Command] = []
    text: list[str] = []
    shown: list[str] = []
    where = ""
    continuing = False
    for number, line in block:
        if continuing:
            text.append(line)
            continuing = line.endswith("\\")
        elif line.startswith("$ "):
            if text:
                commands.append(Command("\n".join(text), "\n".join(shown), where))
            text, shown, where = [line[2:]], [], f"{doc}:{number}"
            continuing = line.endswith("\\")
        elif not line.startswith("# ") and text:
            shown.append(line)
    if text:
        commands.append(Command("\n".join(text), "\n".join(shown), where))
    return commands


# -- comparing ---------------------------------------------------------------------------------------------------


def as_terminal(output: str) -> str:
    """What a terminal shows: each line's text after its last carriage return, trailing spaces and blank lines at
    either end dropped."""
    lines = [line.removesuffix("\r").rsplit("\r", 1)[-1].rstrip() for line in output.split("\n")]  # CRLF: HTTP
    return "\n".join(lines).strip("\n")


def _same(shown: str, actual: str, run: Run) -> bool:
    """``actual`` is ``shown``, ``…`` matching any text and each timestamp the same one or one the run made."""
    pattern, stamps = [], []
    for index, part in enumerate(STAMP.split(shown)):
        kind = index % 4  # split's groups: the text between, then the ISO, HTTP and clock alternatives
        if kind == 0:
            pattern += [re.escape(literal) for literal in ELLIPSIS.split(part)[:1]]
            pattern += [f".*{re.escape(literal)}" for literal in ELLIPSIS.split(part)[1:]]
        elif part is not None:
            pattern.append(f"({(ISO, HTTP_DATE, CLOCK)[kind - 1]})")
            stamps.append(part)
    found = re.fullmatch("".join(pattern), actual, re.S)
    if found is None:
        return False
    return all(got == wanted or run.made(got) for wanted, got in zip(stamps, found.groups(), strict=True))


def read_shown_json(text: str) -> Any:
    """The shown JSON with its placeholders: bare ``…`` become ``ANY`` (as a member: ``"ANY": ANY``)."""
    out: list[str] = []
    stack: list[str] = []
    index, in_string = 0, False
    while index < len(text):
        char = text[index]
        if in_string:
            out.append(char)
            if char == "\\":
                out.append(text[index + 1])
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif (found := ELLIPSIS.match(text, index)) is not None:
            previous = "".join(out).rstrip()[-1:]
            member = bool(stack) and stack[-1] == "{" and previous in ("{", ",")
            out.append(json.dumps(ANY) + (":" + json.dumps(ANY) if member else ""))
            index = found.end() - 1
        else:
            if char in "{[":
                stack.append(char)
            elif char in "}]" and stack:
                stack.pop()
            out.append(char)
        index += 1
    return json.loads("".join(out))


def _json_matches(shown: Any, actual: Any, run: Run) -> bool:
    if shown == ANY:
        return True
    if isinstance(shown, str):
        placeholder = re.fullmatch(r"<[^<>]+>", shown) is not None
        return actual is not None if placeholder else isinstance(actual, str) and _same(shown, actual, run)
    if isinstance(shown, dict):
        return isinstance(actual, dict) and _members_match(shown, actual, run)
    if isinstance(shown, list):
        return isinstance(actual, list) and _elements_match(shown, actual, run)
    return bool(type(shown) is type(actual) and shown == actual)


def _members_match(shown: dict[str, Any], actual: dict[str, Any], run: Run) -> bool:
    keys = set(shown) - {ANY}
    if ANY not in shown and set(actual) != keys:
        return False
    return keys <= set(actual) and all(_json_matches(shown[key], actual[key], run) for key in keys)


def _elements_match(shown: list[Any], actual: list[Any], run: Run) -> bool:
    if shown and shown[-1] == ANY:
        shown = shown[:-1]
        actual = actual[: len(shown)]
    pairs = zip(shown, actual, strict=False)
    return len(shown) == len(actual) and all(_json_matches(s, a, run) for s, a in pairs)


def _as_json(text: str, shown: bool) -> list[Any] | None:
    """The text as JSON documents: the whole text as one, or each line as one; None when it is not JSON."""
    read = read_shown_json if shown else json.loads
    try:
        return [read(text)]
    except (ValueError, IndexError):
        pass
    try:
        return [read(line) for line in text.splitlines()]
    except (ValueError, IndexError):
        return None


def _text_matches(shown: list[str], actual: list[str], run: Run) -> bool:
    if not shown:
        return not actual
    head = shown[0]
    if ELLIPSIS.fullmatch(head.strip()):
        return any(_text_matches(shown[1:], actual[skip:], run) for skip in range(len(actual) + 1))
    return bool(actual) and _same(head, actual[0], run) and _text_matches(shown[1:], actual[1:], run)


def matches(shown: str, actual: str, run: Run = ALWAYS) -> bool:
    """Whether ``actual`` (the command's output) is what the doc shows, on its stable parts."""
    shown, actual = as_terminal(shown), as_terminal(actual)
    documents = _as_json(shown, shown=True)
    if documents is not None:
        got = _as_json(actual, shown=False)
        return (
            got is not None
            and len(got) == len(documents)
            and all(_json_matches(s, a, run) for s, a in zip(documents, got, strict=True))
        )
    return _text_matches(shown.splitlines(), actual.splitlines(), run)
