"""Free ports: a port handed out is kept from every other caller of the same user on the machine, in this process or
another; where its note cannot be kept, a port free now is handed out all the same."""

from __future__ import annotations

import os
import random
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


class _Draws:
    """``free_port``'s draws coming out as ``numbers``, in order."""

    def __init__(self, *numbers: int) -> None:
        self.numbers: Iterator[int] = iter(numbers)

    def randrange(self, *_: int) -> int:
        return next(self.numbers)


def _draws(monkeypatch: pytest.MonkeyPatch, *numbers: int) -> None:
    monkeypatch.setattr(ports, "_RANDOM", _Draws(*numbers))


def _unbound_ports(count: int) -> list[int]:
    """``count`` different ports of ``RANGE`` free now: not the kernel's own (``bind(0)``), which an outgoing
    connection of another process may take before the test draws it."""
    found: list[int] = []
    for port in random.sample(range(*ports.RANGE), 64):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    raise AssertionError(f"fewer than {count} free ports among 64 of {ports.RANGE}")


def _unbound_port() -> int:
    (port,) = _unbound_ports(1)
    return port


def test_a_port_handed_out_is_not_handed_out_again_while_it_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _unbound_ports(2)
    _draws(monkeypatch, first, first, second)
    assert ports.free_port() == first
    assert ports.free_port() == second  # the second draw of ``first`` was passed over


def test_a_note_a_little_ahead_of_the_clock_still_holds_its_port(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _unbound_ports(2)
    _draws(monkeypatch, first, first, second)
    monkeypatch.setattr(ports, "_now", lambda: 1_000_000.0006)  # noted as 1000000.001: ahead of the clock read again
    assert ports.free_port() == first
    assert ports.free_port() == second


@pytest.mark.parametrize(
    "step",
    [ports.HELD + 1, -3600.0],  # the hold is over; the clock stepped back an hour (a note from far ahead)
)
def test_a_port_is_handed_out_again_once_its_note_no_longer_holds_it(
    step: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _unbound_port()
    _draws(monkeypatch, port, port)
    clock = [1_000_000.0]
    monkeypatch.setattr(ports, "_now", lambda: clock[0])
    assert ports.free_port() == port
    clock[0] += step
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
    _draws(monkeypatch, port, port)
    assert (ports.free_port(), ports.free_port()) == (port, port)


def test_a_folder_others_may_write_in_is_not_trusted_with_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setattr(ports, "_HANDED", shared)
    port = _unbound_port()
    _draws(monkeypatch, port, port)
    assert (ports.free_port(), ports.free_port()) == (port, port)
    assert list(shared.iterdir()) == []  # nothing written where another user could have placed a link


def test_a_note_that_cannot_be_written_claims_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    port = _unbound_port()
    ports._HANDED.mkdir(mode=0o700)
    (ports._HANDED / str(port)).mkdir()  # where the note goes, a folder: it cannot be opened to write
    _draws(monkeypatch, port, port)
    assert (ports.free_port(), ports.free_port()) == (port, port)
