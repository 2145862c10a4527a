"""Building the Lambda asset under the tests' conditions: the bytecode tag of the runtime's CPython, the cache of
an asset's dependencies, pip refused, and no CPython of the runtime's version anywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from infra import bytecode

RUNTIME_TAG = "cpython-" + bytecode.PYTHON_VERSION.replace(".", "")


def deps_cache(asset: Path) -> Path:
    return asset.parent / f".{asset.name}-deps"


def no_pip(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Make any pip run fail the test (compiling still runs); return the list of attempted pip commands."""
    calls: list[Any] = []
    run = subprocess.run

    def refuse_pip(command: Any, *args: Any, **kwargs: Any) -> Any:
        if "pip" in command:
            calls.append(command)
            raise AssertionError(f"pip ran: {command}")
        return run(command, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", refuse_pip)
    return calls


def no_interpreter(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No CPython of the runtime's version anywhere: an empty PATH, an empty pyenv root, a 3.11 running Python."""
    monkeypatch.delenv(bytecode.INTERPRETER_ENV, raising=False)
    monkeypatch.setenv("PATH", "")
    empty = tmp_path / "pyenv"
    (empty / "versions").mkdir(parents=True)
    monkeypatch.setenv("PYENV_ROOT", str(empty))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
