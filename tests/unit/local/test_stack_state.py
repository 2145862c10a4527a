"""The running stack's state file (``local.state``): what the admin targets and ``local/env.sh`` read to find the
stack ``make run`` started, and why they refuse when there is none."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from local import state
from local.state import NoStack, StackState


def _state(pid: int) -> StackState:
    return StackState(
        pid, "http://127.0.0.1:3001", "http://127.0.0.1:4567", "http://127.0.0.1:8001", {"TABLE_NAME": "t"}
    )


@pytest.fixture
def other_process() -> Iterator[subprocess.Popen[bytes]]:
    """A live process that is not a local stack."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield process
    process.kill()
    process.wait()


def test_no_state_file_is_no_stack_and_says_how_to_start_one(tmp_path: Path) -> None:
    with pytest.raises(NoStack, match=r"no local stack is running from .*make run starts one \(DATA_DIR="):
        state.running(tmp_path)


def test_a_stack_whose_process_is_gone_is_no_stack(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    state.write(tmp_path, _state(int(gone.stdout)))

    with pytest.raises(NoStack, match=r"is no longer running"):
        state.running(tmp_path)


def test_a_process_that_took_the_number_of_a_stack_is_no_stack(
    tmp_path: Path, other_process: subprocess.Popen[bytes]
) -> None:
    state.write(tmp_path, _state(other_process.pid))

    with pytest.raises(NoStack, match=r"is no longer running"):
        state.running(tmp_path)


def test_a_running_stack_is_read_back_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state, "_alive", lambda pid: pid == 4242)
    state.write(tmp_path, _state(4242))

    assert state.running(tmp_path) == _state(4242)
    assert state.running(tmp_path).shell()["API"] == "http://127.0.0.1:3001"
    assert state.running(tmp_path).shell()["AWS_ENDPOINT_URL"] == "http://127.0.0.1:4567"


def test_a_stack_removes_only_its_own_state_file(tmp_path: Path) -> None:
    state.write(tmp_path, _state(4242))

    state.remove(tmp_path, 4343)  # a second stack, refused at start, stops
    assert state.path_in(tmp_path).exists()
    state.remove(tmp_path, 4242)
    assert not state.path_in(tmp_path).exists()


def test_the_data_dir_is_data_dir_or_var(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DATA_DIR", raising=False)
    assert state.data_dir() == state.ROOT / "var"
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    assert state.data_dir() == tmp_path


def test_the_admin_command_refuses_without_a_stack_and_touches_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "DATA_DIR": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-m", "local.admin", "rollback", "geo"], env=env, capture_output=True, text=True, check=False
    )

    assert run.returncode == 1
    assert run.stderr.startswith(f"error: no local stack is running from {tmp_path}")
    assert "Traceback" not in run.stderr
