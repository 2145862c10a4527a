"""The Lambda asset's bytecode: compiled by a CPython of the runtime's version, found on this machine, for the paths
Lambda unpacks it to (``infra.packaging`` builds the asset)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

PYTHON_VERSION: Final = "3.12"  # the Lambda runtime both functions use (infra.functions pins the same)
# Where Lambda unpacks the asset: the path the compiled modules name in tracebacks.
TASK_ROOT: Final = "/var/task"
# An interpreter to compile with, when it is not found by itself (a path, or a command on PATH).
INTERPRETER_ENV: Final = "LAMBDA_PYTHON"


class PackagingError(RuntimeError):
    pass


def compile_bytecode(directory: Path, *, root: Path, interpreter: str | None = None) -> None:
    """Compile every module under ``directory`` (part of an asset rooted at ``root``) for the Lambda runtime.

    The compiled files name their source as ``/var/task/<path under root>``; a fixed hash seed keeps the bytes the
    same from one build to the next.
    """
    python = interpreter or find_interpreter()
    command = [
        python,
        "-m",
        "compileall",
        "-q",
        "-j0",
        "--invalidation-mode",
        "unchecked-hash",
        "-s",
        str(root),
        "-p",
        TASK_ROOT,
        str(directory),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    result = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if result.returncode != 0:
        raise PackagingError(
            f"compiling the Lambda asset's bytecode failed (exit {result.returncode}):\n"
            f"{' '.join(command)}\n{result.stdout[-4000:]}{result.stderr[-4000:]}"
        )


def find_interpreter(
    version: str = PYTHON_VERSION, *, environ: Mapping[str, str] | None = None, running: str | None = None
) -> str:
    """A CPython ``version`` interpreter to compile the asset's bytecode with, or PackagingError naming the places
    looked in: ``$LAMBDA_PYTHON``, the Python running this (``running``, default ``sys.executable``),
    ``python<version>`` on ``PATH``, then pyenv's installed versions (``$PYENV_ROOT``, default ``~/.pyenv``), newest
    patch release first. Each candidate is run, so a pyenv shim for a version that is not selected is passed over.
    """
    environ = os.environ if environ is None else environ
    tag = "cpython-" + version.replace(".", "")
    command = f"python{version}"
    chosen = environ.get(INTERPRETER_ENV, "")
    if chosen:
        if _cache_tag(chosen, environ) != tag:
            raise PackagingError(f"{INTERPRETER_ENV}={chosen} is not a CPython {version} interpreter that runs")
        return chosen
    if environ.get("PYENV_ROOT"):
        root = Path(environ["PYENV_ROOT"])
    else:
        root = (Path(environ["HOME"]) if environ.get("HOME") else Path.home()) / ".pyenv"
    installed = sorted(
        (root / "versions").glob(f"{version}.*/bin/{command}"),
        key=lambda path: _release(path.parent.parent.name),
        reverse=True,
    )
    candidates = [
        sys.executable if running is None else running,
        shutil.which(command, path=environ.get("PATH", "")) or "",
        *(str(path) for path in installed),
    ]
    for candidate in candidates:
        if candidate and _cache_tag(candidate, environ) == tag:
            return candidate
    raise PackagingError(
        f"No CPython {version} interpreter was found to compile the Lambda asset's bytecode (the python{version} "
        f"runtime uses only {tag} bytecode). Looked for: ${INTERPRETER_ENV}, the Python running this, {command} on "
        f"PATH, and pyenv's "
        f"{root}/versions/{version}.*/bin/{command}. Install one (for example `pyenv install {version}`) or set "
        f"{INTERPRETER_ENV} to its path."
    )


def _release(name: str) -> tuple[int, ...]:
    """``3.12.10`` -> (3, 12, 10); other names (``3.12-dev``) sort before every release, so are tried last."""
    try:
        return tuple(int(part) for part in name.split("."))
    except ValueError:
        return ()


def _cache_tag(interpreter: str, environ: Mapping[str, str]) -> str | None:
    """The bytecode tag of ``interpreter`` (``cpython-312``), or None if it does not run."""
    path = environ.get("PATH", "")
    executable = interpreter if os.sep in interpreter else shutil.which(interpreter, path=path)
    if executable is None:
        return None
    try:
        result = subprocess.run(
            [executable, "-c", "import sys; print(sys.implementation.cache_tag)"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            env={**environ, "PATH": path},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None
