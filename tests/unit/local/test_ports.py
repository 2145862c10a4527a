"""Free ports: a port handed out is kept from every other caller on the machine, in this process or another."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from local import ports
from tests.support import ROOT


@pytest.fixture(autouse=True)
def _handed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notes of ports handed out, in a folder of this test's own (as ``TMPDIR=tmp_path`` would place it)."""
    monkeypatch.setattr(ports, "_HANDED", tmp_path / f"fencepost-ports-{os.getuid()}")


def _draws(monkeypatch: pytest.MonkeyPatch, *numbers: int) -> None:
    """Make the random draws of ``free_port`` come out as ``numbers``, in order."""
    sequence: Iterator[int] = iter(numbers)
    monkeypatch.setattr("local.ports.random.randrange", lambda *_: next(sequence))


def _unbound_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_a_port_handed_out_is_not_handed_out_again_while_it_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _unbound_port(), _unbound_port()
    _draws(monkeypatch, first, first, second)
    assert ports.free_port() == first
    assert ports.free_port() == second  # the second draw of ``first`` was passed over


def test_a_port_is_handed_out_again_once_its_hold_is_over(monkeypatch: pytest.MonkeyPatch) -> None:
    port = _unbound_port()
    _draws(monkeypatch, port, port)
    clock = [1_000_000.0]
    monkeypatch.setattr("local.ports.time.time", lambda: clock[0])
    assert ports.free_port() == port
    clock[0] += ports.HELD + 1
    assert ports.free_port() == port


def test_a_port_something_is_bound_to_is_not_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        taken = busy.getsockname()[1]
        free = _unbound_port()
        _draws(monkeypatch, taken, free)
        assert ports.free_port() == free


def test_another_process_on_the_machine_is_not_handed_a_port_this_one_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _unbound_port()
    _draws(monkeypatch, port)
    assert ports.free_port() == port
    claim = f"from local import ports; print(ports._claim({port}), ports._claim({port + 1}))"  # the folder exists
    other = subprocess.run(
        [sys.executable, "-c", claim],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert other.stdout.split() == ["False", "True"]


def test_without_a_folder_to_note_ports_in_a_port_free_now_is_handed_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setattr(ports, "_HANDED", blocked / "notes")  # under a file: the folder cannot be made
    port = _unbound_port()
    _draws(monkeypatch, port)
    assert ports.free_port() == port
