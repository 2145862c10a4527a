"""The walkthroughs of README.md and docs/*.md, run as a reader runs them, against ``make run``'s entry point.

One ``python -m local`` on free ports serves every document, in the order a reader meets them (the README, then
docs/ by name). Each document's ``console`` blocks run in one bash session, in a folder that looks like the project
(its files linked in, ``../shared`` beside it) so that ``source local/env.sh``, ``make rollback`` and the files a
walkthrough writes behave as in a clone; ``DATA_DIR`` names the test's stack, as ``make run`` would have written
``var/stack.json``. Each command's output is compared with what the doc shows by the convention of
``tests/walkthroughs.py``; ``$ make run`` itself is compared with what the stack printed, ports and data dir aside.
"""

from __future__ import annotations

import os
import re
import select
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests

from local.ports import free_port
from local.state import STATE_NAME
from tests.support import ROOT
from tests.walkthroughs import RETRY_SECONDS, Command, Run, as_terminal, matches, walkthrough

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WALKED = [path for path in DOCS if walkthrough(path, ROOT).commands]
LINKED = ["Makefile", "local", "lambdas", "samples", "requirements", "infra", "bench", "enrich", "sql", "events"]
LINKED += ["tests", ".venv", "node_modules", "package.json", "package-lock.json", "pyproject.toml", "app.py"]
LINKED += ["cdk.json", "docs"]
COMMAND_SECONDS = 600  # make plan of the shared IPv4 file, on a busy machine


class Stack:
    """``python -m local`` as ``make run`` starts it, its output kept in a file."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir, self.log = data_dir, data_dir / "make-run.log"
        ports = {"--http-port": free_port(), "--aws-port": free_port(), "--dynamodb-port": free_port()}
        command = [sys.executable, "-m", "local", "--data-dir", str(data_dir)]
        command += [str(part) for flag, port in ports.items() for part in (flag, port)]
        env = {**os.environ, "PYTHONPATH": f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}"}
        data_dir.mkdir(parents=True, exist_ok=True)
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.api, self.ports = f"http://127.0.0.1:{ports['--http-port']}", ports
        self.run = Run(datetime.now(UTC))  # a timestamp from now on was made by this run
        deadline = time.monotonic() + 120
        while not (data_dir / STATE_NAME).exists() or not self._answers():
            assert self.process.poll() is None, self.output()
            assert time.monotonic() < deadline, f"the local stack did not start:\n{self.output()}"
            time.sleep(0.3)

    def _answers(self) -> bool:
        try:
            return requests.get(f"{self.api}/", timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def output(self) -> str:
        """What it printed so far, its ports and data dir written as the README's ``make run`` shows them."""
        text = self.log.read_text(errors="replace")
        for port, default in zip(self.ports.values(), (3000, 4566, 8000), strict=True):
            text = text.replace(f"127.0.0.1:{port}", f"127.0.0.1:{default}").replace(f" {port} (", f" {default} (")
        return text.replace(f"DATA_DIR={self.data_dir} ", "").replace(str(self.data_dir), "var")

    def stop(self) -> None:
        self.process.send_signal(2)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Session:
    """One bash, as a reader's terminal: each command runs in it (its variables and functions stay), its output
    (standard output and error, as the terminal interleaves them) captured apart."""

    def __init__(self, cwd: Path, data_dir: Path) -> None:
        # A reader's terminal: no AWS settings, no $API yet, and not inside a make (make test runs this under make,
        # whose MAKELEVEL and MAKEFLAGS would make every nested make print "Entering directory")
        outside = ("API", "MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")
        env = {name: value for name, value in os.environ.items() if not name.startswith("AWS_") and name not in outside}
        env.update(DATA_DIR=str(data_dir), PYTHONPATH=f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}", TERM="dumb")
        self.out = cwd.parent / "command.out"
        self.bash = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def run(self, text: str) -> tuple[int, str]:
        assert self.bash.stdin is not None
        assert self.bash.stdout is not None
        marker = f"--{uuid.uuid4().hex}--"
        grouped = f"{{ {text}\n}} >{shlex.quote(str(self.out))} 2>&1 </dev/null\necho {marker} $?\n"
        self.bash.stdin.write(grouped.encode())
        self.bash.stdin.flush()
        deadline, seen = time.monotonic() + COMMAND_SECONDS, b""
        while marker.encode() not in seen:
            left = deadline - time.monotonic()
            assert left > 0, f"no end in {COMMAND_SECONDS} s: {text}"
            ready, _, _ = select.select([self.bash.stdout], [], [], left)
            if ready:
                chunk = os.read(self.bash.stdout.fileno(), 65536)
                assert chunk, f"bash exited while running: {text}"
                seen += chunk
        status = int(seen.decode().split(marker, 1)[1].split()[0])
        return status, self.out.read_bytes().decode(errors="replace")

    def close(self) -> None:
        if self.bash.stdin is not None:
            self.bash.stdin.close()
        self.bash.wait(timeout=30)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    for stamp in (".created", ".installed-run"):  # make's targets would otherwise install into the project's .venv
        assert (ROOT / ".venv" / stamp).exists(), "install first: make install"
    started = Stack(tmp_path_factory.mktemp("walkthroughs") / "var")
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder that looks like the project to the commands (its files linked in), with ``../shared`` beside it."""
    top = tmp_path_factory.mktemp("reader")
    (top / "shared").symlink_to((ROOT.parent / "shared").resolve())
    folder = top / "fencepost"
    folder.mkdir()
    for name in LINKED:
        if (ROOT / name).exists():
            (folder / name).symlink_to(ROOT / name)
    return folder


def _make_run(command: Command, stack: Stack) -> None:
    deadline = time.monotonic() + RETRY_SECONDS
    while not matches(command.shown, stack.output(), stack.run):
        if time.monotonic() > deadline:
            pytest.fail(_mismatch(command, stack.output()))
        time.sleep(0.5)


def _mismatch(command: Command, actual: str) -> str:
    return f"{command.doc}: $ {command.text}\n--- shown ---\n{command.shown}\n--- got ---\n{as_terminal(actual)}"


@pytest.mark.parametrize("doc", WALKED, ids=[str(path.relative_to(ROOT)) for path in WALKED])
def test_the_walkthrough_runs_as_written_and_shows_what_the_doc_shows(doc: Path, stack: Stack, clone: Path) -> None:
    session = Session(clone, stack.data_dir)
    try:
        for command in walkthrough(doc, ROOT).commands:
            if re.match(r"make run\b", command.text):
                _make_run(command, stack)
                continue
            deadline = time.monotonic() + (RETRY_SECONDS if command.repeated else 0)
            while True:
                status, output = session.run(command.text)
                if status != 0:
                    pytest.fail(f"exit status {status}\n" + _mismatch(command, output))
                if not command.shown or matches(command.shown, output, stack.run):
                    break
                if time.monotonic() > deadline:
                    pytest.fail(_mismatch(command, output))
                time.sleep(1)
    finally:
        session.close()
